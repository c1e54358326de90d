/**
 * The administrator console's page script (D-271): sign-in with the admin token (held in memory only, D-273),
 * then one view per section, chosen by the URL fragment (#accounts, #api-keys ...). Every call goes through the
 * generated admin SDK; every failure shows the server's `{error}` text.
 */
import { config } from 'zod';
import { adminListApiKeys } from '@svckit/sdk/admin';
import { accountsView, showIn } from './accounts.ts';
import { answer, client, signedIn, signIn, signOut } from './api.ts';
import { chainView } from './chain.ts';
import { evidenceView } from './evidence.ts';
import { field, form, h } from './dom.ts';
import { apiKeysView, mldsaKeysView } from './keys.ts';
import { deliveriesView, endpointsView } from './webhooks.ts';

// D-272: the page's policy refuses eval; zod's compiled validators would try it (and report a violation).
config({ jitless: true });

type View = (main: HTMLElement, rerender: () => void) => Promise<void>;

const VIEWS: Array<{ slug: string; title: string; view: View }> = [
  { slug: 'accounts', title: 'Accounts', view: (m, r) => accountsView(m, r) },
  { slug: 'api-keys', title: 'API keys', view: apiKeysView },
  { slug: 'mldsa-keys', title: 'ML-DSA keys', view: mldsaKeysView },
  { slug: 'webhooks', title: 'Webhooks', view: endpointsView },
  { slug: 'deliveries', title: 'Deliveries', view: (m, r) => deliveriesView(m, r) },
  { slug: 'chain', title: 'Chain', view: (m, r) => chainView(m, r) },
  { slug: 'evidence', title: 'Evidence', view: (m) => evidenceView(m) },
];

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;

function current() {
  const slug = location.hash.replace(/^#/, '');
  return VIEWS.find((v) => v.slug === slug) ?? VIEWS[0]!;
}

function drawNav(): void {
  if (!signedIn()) {
    nav.replaceChildren();
    return;
  }
  const active = current();
  const out = h('button', { type: 'button', class: 'link' }, 'Sign out');
  out.addEventListener('click', () => {
    signOut();
    route();
  });
  nav.replaceChildren(
    ...VIEWS.map((v) => h('a', { href: `#${v.slug}`, 'aria-current': v === active ? 'page' : undefined }, v.title)),
    out,
  );
}

function route(): void {
  drawNav();
  if (!signedIn()) {
    drawSignIn();
    return;
  }
  const { title, view } = current();
  document.title = `${title} — svckit administrator console`;
  const rerender = () => route();
  const error = h('p', { class: 'error', role: 'alert' });
  main.replaceChildren(h('h2', {}, title), h('p', {}, 'Loading…'));
  view(main, rerender).catch((failure) => {
    main.replaceChildren(h('h2', {}, title), error);
    showIn(error)(failure);
  });
}

function drawSignIn(): void {
  document.title = 'Sign in — svckit administrator console';
  const token = field('Admin token', { name: 'token', type: 'password', required: true, autocomplete: 'off' });
  main.replaceChildren(
    h('h2', {}, 'Sign in'),
    h(
      'p',
      {},
      'The admin token is printed once when the server first starts (or by svckit admin token rotate). ',
      'This page keeps it in memory only: a reload asks for it again.',
    ),
    form('Sign in', [token], 'Sign in', async (data) => {
      signIn(String(data.get('token') ?? '').trim());
      try {
        // Any admin call checks the token; the list of API keys is small.
        await answer(adminListApiKeys({ client }));
      } catch (failure) {
        signOut();
        throw failure;
      }
      route();
      main.focus();
    }),
  );
  token.input.focus();
}

window.addEventListener('hashchange', () => {
  // A message belongs to the view it was said in.
  document.getElementById('status')!.textContent = '';
  route();
  main.focus();
});
route();
