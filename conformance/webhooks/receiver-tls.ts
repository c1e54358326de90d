/**
 * The receiver's TLS material: its own CA and server certificate, made with the same generator as the
 * stack's development certificates. One set per harness process, in a fresh temporary folder, unless a
 * folder is named (`svckit conformance --receiver-tls-dir`), so that an external target can be set up once to
 * trust its CA (SVC_WEBHOOK_CA_FILE on svckit; D-102).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevCertificates, type TlsMaterial } from '../../src/server/tls/dev-certificates.ts';

let material: Promise<TlsMaterial> | undefined;
let chosen: { dir: string; hosts: string[] } | undefined;

/** Names the folder (and extra host names for the certificate) before first use. */
export function chooseReceiverTlsDir(dir: string, hosts: string[] = []): void {
  if (material) throw new Error('the receiver TLS material is already in use');
  chosen = { dir, hosts };
}

/** The harness receiver's CA, certificate and key (created on first use). */
export function receiverTls(): Promise<TlsMaterial> {
  material ??= ensureDevCertificates(
    chosen?.dir ?? mkdtempSync(path.join(tmpdir(), 'svckit-receiver-')),
    chosen?.hosts ?? [],
    'svckit conformance webhook receiver CA',
  );
  return material;
}
