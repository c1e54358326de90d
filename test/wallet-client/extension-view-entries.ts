// The wallet view's entry point and modules touch chrome.* at load, so the tests never import them; naming
// their types here puts them under the root tsc (tsconfig.json includes test/ but not extension/).
import type * as guard from '../../extension/src/view-guard.ts';
import type * as view from '../../extension/src/wallet-view.ts';

/** The module types of the wallet view (the page script and the service worker's signing guard). */
export type ExtensionViewEntries = [typeof view, typeof guard];
