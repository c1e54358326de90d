// D-282: every development CA is distinct, so a trust store holding several (a process that started several
// stacks, a machine that trusted an earlier data directory's CA) still verifies each stack's certificate.
// Real certificates from ensureDevCertificates and a real TLS handshake on loopback.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDevCertificates, type TlsMaterial } from '../../src/server/tls/dev-certificates.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function material(): Promise<TlsMaterial> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-devca-'));
  dirs.push(dir);
  return ensureDevCertificates(dir, []);
}

/** Whether a client trusting exactly `ca` accepts a server presenting `server`'s certificate. */
async function accepted(server: TlsMaterial, ca: string[]): Promise<boolean | string> {
  const listener = tls.createServer({ cert: server.cert, key: server.key }, (socket) => socket.end());
  listener.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise((resolve) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: (listener.address() as AddressInfo).port, ca, servername: 'localhost' },
        () => {
          socket.destroy();
          resolve(true);
        },
      );
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  } finally {
    listener.close();
  }
}

describe('development CAs (D-282)', () => {
  it('differ in name and serial, and the server certificate names its CA key', async () => {
    const [a, b] = [await material(), await material()];
    const [caA, caB] = [new x509.X509Certificate(a.caCert), new x509.X509Certificate(b.caCert)];
    expect(caA.subject).toMatch(/^CN=svckit development CA [0-9a-f]{12}$/);
    expect(caA.subject).not.toBe(caB.subject);
    expect(caA.serialNumber).not.toBe(caB.serialNumber);
    const server = new x509.X509Certificate(b.cert);
    expect(server.issuer).toBe(caB.subject);
    const authority = server.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    expect(authority).toMatch(/^[0-9a-f]{40}$/);
    expect(authority).toBe(caB.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
  });

  it("verify each stack's certificate whatever other development CAs the client trusts", async () => {
    const [a, b] = [await material(), await material()];
    expect(await accepted(b, [a.caCert])).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await accepted(b, [a.caCert, b.caCert])).toBe(true);
    expect(await accepted(b, [b.caCert, a.caCert])).toBe(true);
    expect(await accepted(a, [b.caCert, a.caCert])).toBe(true);
  });
});
