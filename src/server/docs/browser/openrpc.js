// Browser entry of the OpenRPC reference page, bundled by scripts/build-docs.ts into dist/docs/openrpc.js.
// Plain JavaScript: it is browser code built by esbuild, not part of the server's type-checked sources.
// It reads the contract from the URL in the mount element's data-spec-url (served from specs/ by the
// server), so the page holds no inline script and the Content-Security-Policy can allow only 'self'.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { CssBaseline, ThemeProvider, createTheme } from '@mui/material';
import { Documentation } from '@open-rpc/docs-react';

const mount = document.getElementById('openrpc');
const theme = createTheme({ palette: { mode: 'light' } });

fetch(mount.dataset.specUrl, { headers: { accept: 'application/json' } })
  .then((response) => {
    if (!response.ok) throw new Error(`${mount.dataset.specUrl} answered ${response.status}`);
    return response.json();
  })
  .then((schema) => {
    createRoot(mount).render(
      createElement(
        ThemeProvider,
        { theme },
        createElement(CssBaseline),
        createElement(Documentation, { schema, uiSchema: { methods: { 'ui:defaultExpanded': false } } }),
      ),
    );
  })
  .catch((error) => {
    mount.textContent = `The OpenRPC document could not be loaded: ${error.message}`;
  });
