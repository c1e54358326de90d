// Debian's Chromium as the browser tests start it: the executable, the flags this closed machine needs
// (no background networking, no component updates, no QUIC), and trust in one TLS server by its key.
import { createHash, X509Certificate } from 'node:crypto';
import tls from 'node:tls';

/** Debian's Chromium (`apt-get install chromium`); the tests skip, saying so, where it is absent. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every browser test passes, before its own. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** base64 SHA-256 of the SubjectPublicKeyInfo of the certificate the TLS server at `url` presents. */
export async function spkiHash(url: URL, ca: string): Promise<string> {
  const cert = await new Promise<Buffer>((resolve, reject) => {
    const socket = tls.connect(
      {
        host: url.hostname,
        port: Number(url.port),
        ca,
        servername: url.hostname === '127.0.0.1' ? undefined : url.hostname,
      },
      () => {
        resolve(socket.getPeerCertificate(false).raw);
        socket.end();
      },
    );
    socket.on('error', reject);
  });
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** The flag that trusts exactly the server at `url` (its key), instead of ignoring every TLS error. */
export const trustServerFlag = async (url: URL, ca: string) =>
  `--ignore-certificate-errors-spki-list=${await spkiHash(url, ca)}`;
