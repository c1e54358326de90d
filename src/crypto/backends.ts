// Which libraries serve the façade, with their installed versions (for results files and evidence).
import { installedPackageVersion, opensslVersion } from './backends/versions.ts';

/** One library the façade uses. */
export interface CryptoBackend {
  /** Library name. */
  name: string;
  /** Installed version. */
  version: string;
  /** What the façade takes from it. */
  serves: string;
}

/** The façade's backends: OpenSSL through node:crypto first, then @noble/post-quantum and @noble/hashes. */
export function cryptoBackends(): CryptoBackend[] {
  return [
    {
      name: 'OpenSSL (node:crypto)',
      version: opensslVersion(),
      serves: 'ML-DSA-65 pure signing and verification, ML-KEM-768, AES-256-GCM, HMAC-SHA256, SHA3-256, HKDF-SHA256',
    },
    {
      name: '@noble/post-quantum',
      version: installedPackageVersion('@noble/post-quantum'),
      serves:
        'ML-DSA-65 with a given rnd or deterministic, the internal interface and external mu, HashML-DSA; ML-KEM-768 with a given m',
    },
  ];
}
