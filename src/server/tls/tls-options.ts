/**
 * HTTPS options of the three origins. spec: "All institutional REST endpoints are served over HTTPS with
 * hybrid post-quantum TLS (X25519MLKEM768). Plain HTTP connections are rejected." TLS 1.3 only; by default
 * the only key-exchange group is X25519MLKEM768, so a client offering no hybrid group fails the handshake.
 */
import type { SecureServerOptions } from 'node:http2';
import type { TlsMaterial } from './dev-certificates.ts';

/** The hybrid post-quantum TLS group (ML-KEM-768 combined with X25519). */
export const HYBRID_GROUP = 'X25519MLKEM768';

/** The classical groups accepted only when SVC_TLS_ALLOW_CLASSICAL is set (D-093, D-157). */
const CLASSICAL_GROUPS = ['X25519', 'P-256'];

/** Node HTTPS server options for the given material. */
export function httpsOptions(
  material: Pick<TlsMaterial, 'cert' | 'key'>,
  allowClassical: boolean,
): SecureServerOptions {
  return {
    cert: material.cert,
    key: material.key,
    minVersion: 'TLSv1.3',
    ecdhCurve: [HYBRID_GROUP, ...(allowClassical ? CLASSICAL_GROUPS : [])].join(':'),
  };
}

/**
 * D-157: the line `svckit serve` writes to stderr at start when SVC_TLS_ALLOW_CLASSICAL is on, so that a
 * relaxed transport is never silent: the server then breaks the spec's "hybrid post-quantum TLS
 * (X25519MLKEM768)" rule, and conformance reports it (transport.tls.classical_refused fails).
 */
export const CLASSICAL_TLS_WARNING =
  `svckit serve: WARNING: SVC_TLS_ALLOW_CLASSICAL=true: every origin also accepts TLS clients without ${HYBRID_GROUP} (classical ${CLASSICAL_GROUPS.join(', ')} key exchange). ` +
  'For local experiments only: this server does not meet the hybrid post-quantum TLS rule, and the conformance check transport.tls.classical_refused fails against it.';
