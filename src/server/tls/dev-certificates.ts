/**
 * The development CA and server certificate written on first start under `<dataDir>/tls/` (DESIGN.md:
 * "On first start it writes a dev TLS certificate under .data/tls/"), made with @peculiar/x509.
 * Clients trust `ca.pem`; the server presents `server.pem` (ECDSA P-256; the key exchange is the hybrid
 * post-quantum group, see tls-options.ts).
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

/** PEM files of the development TLS material. */
export type TlsMaterial = { caCertPath: string; caCert: string; cert: string; key: string };

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function subjectAltNames(hosts: string[]) {
  const names = hosts.map((host) =>
    /^[\d.]+$|:/.test(host) ? { type: 'ip' as const, value: host } : { type: 'dns' as const, value: host },
  );
  return new x509.SubjectAlternativeNameExtension(names);
}

/** D-282: a random positive serial number of 16 bytes (RFC 5280 §4.1.2.2 allows up to 20). */
const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString('hex');
};

/**
 * Creates a CA and a server certificate for `hosts` (DNS names or IP addresses). D-282: every CA is distinct
 * from every other development CA: its name ends in a random suffix, its serial is random, and the server
 * certificate names its key (authority key identifier), so a trust store holding several never picks the wrong one.
 */
async function createMaterial(hosts: string[], caName = 'svckit development CA') {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const now = Date.now();
  const caKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${caName} ${randomBytes(6).toString('hex')}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=svckit development server',
    issuer: ca.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 825 * DAY),
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(serverKeys.publicKey),
      subjectAltNames(hosts),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return { caCert: `${ca.toString('pem')}\n`, cert: `${server.toString('pem')}\n`, key: pem('PRIVATE KEY', key) };
}

/**
 * Loads `<dataDir>/tls/{ca,server,server-key}.pem`, creating them on first start. `caName` is the start of the
 * CA's name (the harness's webhook receiver and mocks, the proxy), so a reader can tell whose CA it is.
 */
export async function ensureDevCertificates(dataDir: string, hosts: string[], caName?: string): Promise<TlsMaterial> {
  const dir = path.join(dataDir, 'tls');
  const files = {
    caCert: path.join(dir, 'ca.pem'),
    cert: path.join(dir, 'server.pem'),
    key: path.join(dir, 'server-key.pem'),
  };
  if (!existsSync(files.caCert) || !existsSync(files.cert) || !existsSync(files.key)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const material = await createMaterial([...new Set(['localhost', '127.0.0.1', '::1', ...hosts])], caName);
    writeFileSync(files.caCert, material.caCert);
    writeFileSync(files.cert, material.cert);
    writeFileSync(files.key, material.key, { mode: 0o600 });
  }
  return {
    caCertPath: files.caCert,
    caCert: readFileSync(files.caCert, 'utf8'),
    cert: readFileSync(files.cert, 'utf8'),
    key: readFileSync(files.key, 'utf8'),
  };
}
