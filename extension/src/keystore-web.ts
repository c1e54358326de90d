/**
 * The options page's view of the browser keystore: the implementation is the wallet library's browser-safe
 * module (src/client/wallet/keystore-web.ts), so the extension carries no second copy of it.
 */
export { argon2idWeb, openKeystoreWeb, sealKeystoreWeb } from '@svckit/sdk/wallet-library/browser';
