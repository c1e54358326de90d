/**
 * The options page's view of the browser identity: the implementation is the wallet library's browser-safe
 * module (src/client/wallet/identity-web.ts), so the extension carries no second copy of it.
 */
export { svcIdOfSeed } from '../../src/client/wallet/browser.ts';
