/**
 * The HTML of the reference pages (D-154). Pages hold no inline script (D-156): each loads its renderer
 * and page script from `/docs/assets/`, which the Content-Security-Policy ('self' only) permits.
 */
import type { Contract } from './contracts.ts';

/** A contract as the pages show it. */
export type ShownContract = Contract & { title: string };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function shell(
  prefix: string,
  title: string,
  contracts: readonly ShownContract[],
  current: string | undefined,
  head: string,
  body: string,
): string {
  const links = contracts
    .map(
      (c) =>
        `<a href="${prefix}/${c.slug}"${c.slug === current ? ' aria-current="page"' : ''}>${escapeHtml(c.slug)}</a>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${prefix}/assets/docs.css">
${head}
</head>
<body>
<nav class="svckit-docs-bar"><a href="${prefix}"${current ? '' : ' aria-current="page"'}>svckit API reference</a>${links}</nav>
${body}
</body>
</html>
`;
}

/** The index page: one link per contract, with the file it is built from. */
export function indexPage(prefix: string, contracts: readonly ShownContract[]): string {
  const items = contracts
    .map(
      (c) =>
        `<li><a href="${prefix}/${c.slug}">${escapeHtml(c.title)}</a> — ${escapeHtml(c.surface)} <span class="file"><a href="${prefix}/specs/${c.file}">specs/${escapeHtml(c.file)}</a></span></li>`,
    )
    .join('\n');
  const body = `<main class="svckit-docs-index">
<h1>svckit API reference</h1>
<p>Rendered from the contracts in <code>specs/</code>, the single source of truth the SDKs are generated from.</p>
<ul>
${items}
</ul>
</main>`;
  return shell(prefix, 'svckit API reference', contracts, undefined, '', body);
}

/** The page of one contract; `asyncapiHtml` is the AsyncAPI contract rendered by scripts/build-docs.ts. */
export function contractPage(
  prefix: string,
  contracts: readonly ShownContract[],
  contract: ShownContract,
  asyncapiHtml?: string,
): string {
  const specUrl = `${prefix}/specs/${contract.file}`;
  const assets = `${prefix}/assets`;
  let head = '';
  let body: string;
  if (contract.renderer === 'redoc') {
    // Redoc's standalone bundle starts itself on the <redoc spec-url> element. D-156: its search runs in a
    // worker made from a blob: URL, which a 'self'-only policy refuses, so search is off (the menu lists all).
    body = `<redoc spec-url="${specUrl}" disable-search="true"></redoc>\n<script src="${assets}/redoc.standalone.js"></script>`;
  } else if (contract.renderer === 'asyncapi') {
    // Static HTML: the sidebar and the operation links are anchors, so the page works without a script.
    head = `<link rel="stylesheet" href="${assets}/asyncapi.css">`;
    body = `<div id="asyncapi">${asyncapiHtml ?? ''}</div>`;
  } else {
    body = `<div id="openrpc" data-spec-url="${specUrl}"></div>\n<script src="${assets}/openrpc.js"></script>`;
  }
  return shell(prefix, `${contract.title} — svckit API reference`, contracts, contract.slug, head, body);
}
