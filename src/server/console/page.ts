/**
 * The HTML of the administrator console (D-271): a shell with no inline script or style (D-272); the page
 * script under `/console/assets/` draws every view. Without the script the page says so.
 */
export function consolePage(prefix: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svckit administrator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${prefix}/assets/console.css">
<script defer src="${prefix}/assets/console.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar"><span class="brand">svckit administrator console</span><nav id="nav" aria-label="Sections"></nav></header>
<div id="status" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1"><noscript>The administrator console needs JavaScript.</noscript></main>
</body>
</html>
`;
}
