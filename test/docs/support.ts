/**
 * Helpers of the API reference tests: the docs bundle is built as `npm start` builds it, the reference stack
 * runs on real TLS, and Chromium trusts the stack's leaf key (the dev CA's certificate) by its SPKI hash.
 */
import { createHash, X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { CONTRACTS } from '../../src/server/docs/contracts.ts';

/** The Debian Chromium the browser tests drive. */
export const CHROMIUM = '/usr/bin/chromium';

/** Operation summaries (OpenAPI), message names (AsyncAPI) and method names (OpenRPC) each page must show. */
export const EXPECTED: Record<string, string[]> = {
  institutional: ['List the accounts the credential may read', 'Read an account statement'],
  explorer: ['Chain statistics', 'One block by number or hash'],
  'wallet-session': ['Ask for a sign-in challenge', 'Register a wallet identity (public values only)'],
  admin: ['Check service health', 'Issue an API key'],
  webhooks: ['payment.settled', 'payment.initiated'],
  chain: ['eth_getStorageAt', 'eth_chainId'],
};

/** The section each renderer gives an operation, by operationId (Redoc) or operation key (AsyncAPI). */
export const SECTIONS: Record<string, string[]> = {
  institutional: ['operation/listAccounts', 'operation/getAccountStatement'],
  explorer: ['operation/explorerGetStats', 'operation/explorerGetBlock'],
  'wallet-session': ['operation/walletSessionCreateChallenge', 'operation/walletSessionRegisterWallet'],
  admin: ['operation/adminGetHealth', 'operation/adminCreateApiKey'],
  webhooks: ['operation-send-deliverPaymentSettled', 'operation-send-deliverPaymentInitiated'],
  chain: [],
};

/** Every page slug, in index order. */
export const SLUGS = CONTRACTS.map((c) => c.slug);

/** base64 SHA-256 of the SubjectPublicKeyInfo of the certificate the TLS server at `url` presents. */
export async function spkiHash(url: URL, ca: string): Promise<string> {
  const cert = await new Promise<Buffer>((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca, servername: url.hostname === '127.0.0.1' ? undefined : url.hostname }, () => {
      resolve(socket.getPeerCertificate(false).raw);
      socket.end();
    });
    socket.on('error', reject);
  });
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}
