/**
 * Helpers of the API reference tests: the docs bundle is built as `npm start` builds it, the reference stack
 * runs on real TLS, and Chromium trusts the stack's leaf key (the dev CA's certificate) by its SPKI hash.
 */
import { CONTRACTS } from '../../src/server/docs/contracts.ts';

/** Operation summaries (OpenAPI), message names (AsyncAPI) and method names (OpenRPC) each page must show. */
export const EXPECTED: Record<string, string[]> = {
  institutional: ['List the accounts the credential may read', 'Read an account statement'],
  explorer: ['Chain statistics', 'One block by number or hash'],
  wallet: ['Ask for a sign-in challenge', 'Register a wallet identity (public values only)'],
  admin: ['Check service health', 'Issue an API key'],
  webhooks: ['payment.settled', 'payment.initiated'],
  chain: ['eth_getStorageAt', 'eth_chainId'],
};

/** The section each renderer gives an operation, by operationId (Redoc) or operation key (AsyncAPI). */
export const SECTIONS: Record<string, string[]> = {
  institutional: ['operation/institutionalListAccounts', 'operation/institutionalGetAccountStatement'],
  explorer: ['operation/explorerGetStats', 'operation/explorerGetBlock'],
  wallet: ['operation/walletCreateChallenge', 'operation/walletRegisterWallet'],
  admin: ['operation/adminGetHealth', 'operation/adminCreateApiKey'],
  webhooks: ['operation-send-deliverPaymentSettled', 'operation-send-deliverPaymentInitiated'],
  chain: [],
};

/** Every page slug, in index order. */
export const SLUGS = CONTRACTS.map((c) => c.slug);
