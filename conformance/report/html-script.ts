// The HTML report's script, inlined in the page: it filters the rows of the checks table (written by the
// report, never built from strings here) and copies a command's text. It reads the page's own DOM only: no
// network, no innerHTML. Without it every row shows and the copy buttons stay hidden.

export const SCRIPT = `(() => {
'use strict';
document.documentElement.classList.add('js');
const form = document.getElementById('filters');
const verdict = document.getElementById('f-verdict');
const surface = document.getElementById('f-surface');
const text = document.getElementById('f-id');
const shown = document.getElementById('shown');
const none = document.getElementById('no-match');
const rows = Array.from(document.querySelectorAll('#checks tbody tr[data-id]'));
const apply = () => {
  const v = verdict.value, s = surface.value, q = text.value.trim().toLowerCase();
  let n = 0;
  for (const row of rows) {
    const ok = (!v || row.dataset.status === v) && (!s || row.dataset.surfaces.split(' ').includes(s)) &&
      (!q || row.dataset.id.includes(q));
    row.hidden = !ok;
    if (ok) n++;
  }
  none.hidden = n > 0;
  const word = rows.length === 1 ? 'check' : 'checks';
  shown.textContent = n === rows.length ? 'Showing all ' + n + ' ' + word + '.' : 'Showing ' + n + ' of ' + rows.length + ' ' + word + '.';
};
form.addEventListener('input', apply);
form.addEventListener('change', apply);
form.addEventListener('submit', (event) => event.preventDefault());
form.addEventListener('reset', () => setTimeout(apply, 0));
apply();
const status = document.getElementById('copy-status');
const said = (button, word) => {
  button.textContent = word;
  status.textContent = word === 'Copied' ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C to copy.';
  setTimeout(() => { button.textContent = 'Copy'; }, 2000);
};
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const code = document.getElementById(button.dataset.copy);
  const select = () => {
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    said(button, document.execCommand('copy') ? 'Copied' : 'Selected');
  };
  if (navigator.clipboard && window.isSecureContext)
    navigator.clipboard.writeText(code.textContent).then(() => said(button, 'Copied'), select);
  else select();
});
})();`;
