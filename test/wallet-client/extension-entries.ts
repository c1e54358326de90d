// The extension's entry points touch chrome.* at load, so the tests never import them; naming their types
// here puts them under the root tsc (tsconfig.json includes test/ but not extension/).
import type * as background from '../../extension/src/background.ts';
import type * as content from '../../extension/src/content.ts';
import type * as inpage from '../../extension/src/inpage.ts';
import type * as options from '../../extension/src/options.ts';
import type * as approve from '../../extension/src/approve.ts';

/** The module types of the extension's entry points (background, content, in-page, options, approve). */
export type ExtensionEntries = [typeof background, typeof content, typeof inpage, typeof options, typeof approve];
