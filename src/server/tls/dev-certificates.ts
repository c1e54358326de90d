/**
 * The development CA and server certificate written on first start under `<dataDir>/tls/` (DESIGN.md:
 * "On first start it writes a dev TLS certificate under .data/tls/"), made with @peculiar/x509.
 * Clients trust `ca.pem`; the server presents `server.pem` (ECDSA P-256; the key exchange is the hybrid
 * post-quantum group, see tls-options.ts).
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
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

/** Creates a CA and a server certificate for `hosts` (DNS names or IP addresses). */
async function createMaterial(hosts: string[], caName = 'svckit development CA') {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const now = Date.now();
  const caKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${caName}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    keys: caKeys as CryptoKeyPair,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const serverKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=svckit development server',
    issuer: ca.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 825 * DAY),
    publicKey: (serverKeys as CryptoKeyPair).publicKey,
    signingKey: (caKeys as CryptoKeyPair).privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      subjectAltNames(hosts),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', (serverKeys as CryptoKeyPair).privateKey);
  return { caCert: `${ca.toString('pem')}\n`, cert: `${server.toString('pem')}\n`, key: pem('PRIVATE KEY', key) };
}

/**
 * Loads `<dataDir>/tls/{ca,server,server-key}.pem`, creating them on first start. `caName` gives another CA a
 * distinct subject (the harness's webhook receiver), so trust stores holding both never confuse the two.
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
