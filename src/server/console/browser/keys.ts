/**
 * API keys and ML-DSA keys (D-271). spec: "the raw token is displayed once at creation"; the ML-DSA key pair
 * can be made in this page (D-274): only the public key is sent, the private key is offered as a download.
 */
import {
  adminCreateApiKey,
  adminListApiKeys,
  adminListMldsaKeys,
  adminRegisterMldsaKey,
  adminRevokeApiKey,
  adminRevokeMldsaKey,
  adminUpdateApiKey,
  adminUpdateMldsaKey,
  type Permissions,
} from '@svckit/sdk/admin';
import { zPermission } from '@svckit/sdk/admin/zod';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { announce } from './accounts.ts';
import { answer, client } from './api.ts';
import { button, checks, field, form, h, listOf, shownOnce, table, text } from './dom.ts';

const PERMISSIONS = zPermission.options;
const permissionsOf = (data: FormData) => data.getAll('permissions').map(String) as Permissions;
const accounts = (ids: string[] | null) => (ids === null ? 'every account' : ids.join(', '));

type KeyRow = {
  id: string;
  name: string;
  permissions: string[];
  accountIds: string[] | null;
  createdAt: string;
  revokedAt: string | null;
};

/** The form that limits a key to accounts (an empty list lifts the limit). */
function limitForm(kind: string, keys: KeyRow[], update: (id: string, accountIds: string[] | null) => Promise<void>) {
  const select = h('select', { id: `${kind.replaceAll(' ', '-').toLowerCase()}-limit`, name: 'id', required: true });
  for (const k of keys.filter((k) => !k.revokedAt)) select.append(h('option', { value: k.id }, `${k.name} (${k.id})`));
  return form(
    `Limit an ${kind} to accounts`,
    [
      h('div', { class: 'field' }, h('label', { for: select.id }, 'Key'), select),
      field('Account ids (comma-separated; empty for every account)', { name: 'accountIds' }),
    ],
    'Save account limit',
    async (data) => {
      const ids = listOf(data.get('accountIds'));
      await update(text(data, 'id'), ids.length ? ids : null);
    },
  );
}

function keyRows(
  keys: KeyRow[],
  prefix: (k: KeyRow) => string,
  revoke: (k: KeyRow) => Promise<void>,
  error: HTMLElement,
) {
  return keys.map((k) => [
    k.name,
    h('code', {}, prefix(k)),
    k.permissions.join(', '),
    accounts(k.accountIds),
    k.createdAt,
    k.revokedAt ? `revoked ${k.revokedAt}` : button('Revoke', `Revoke ${k.name}`, () => revoke(k), error),
  ]);
}

export async function apiKeysView(main: HTMLElement, rerender: () => void): Promise<void> {
  const { apiKeys } = await answer(adminListApiKeys({ client }));
  const error = h('p', { class: 'error', role: 'alert' });
  const once = h('div');
  const create = form(
    'Issue an API key',
    [
      field('Name', { name: 'name', required: true }),
      checks('Permissions', 'permissions', PERMISSIONS, ['accounts:read', 'transfers:read']),
      field('Limit to account ids (comma-separated; empty for every account)', { name: 'accountIds' }),
    ],
    'Issue key',
    async (data) => {
      const ids = listOf(data.get('accountIds'));
      const created = await answer(
        adminCreateApiKey({
          client,
          body: {
            name: text(data, 'name'),
            permissions: permissionsOf(data),
            ...(ids.length ? { accountIds: ids } : {}),
          },
        }),
      );
      await apiKeysView(main, rerender);
      main.prepend(shownOnce('API key token', created.token));
      (main.querySelector('[data-once]')?.parentElement?.querySelector('button') as HTMLElement | null)?.focus();
      announce(`Issued API key ${created.name}.`);
    },
  );
  main.replaceChildren(
    h('h2', {}, 'API keys'),
    once,
    table(
      'API keys',
      ['Name', 'Token prefix', 'Permissions', 'Accounts', 'Created', ''],
      keyRows(
        apiKeys,
        (k) => (k as (typeof apiKeys)[number]).tokenPrefix,
        async (k) => {
          await answer(adminRevokeApiKey({ client, path: { id: k.id } }));
          rerender();
          announce(`Revoked ${k.name}.`);
        },
        error,
      ),
    ),
    error,
    create,
    limitForm('API key', apiKeys, async (id, accountIds) => {
      await answer(adminUpdateApiKey({ client, path: { id }, body: { accountIds } }));
      rerender();
      announce('Saved the account limit.');
    }),
  );
}

export async function mldsaKeysView(main: HTMLElement, rerender: () => void): Promise<void> {
  const { mldsaKeys } = await answer(adminListMldsaKeys({ client }));
  const error = h('p', { class: 'error', role: 'alert' });
  const publicKey = h('textarea', {
    id: 'mldsa-public-key',
    name: 'publicKey',
    required: true,
    rows: '4',
    spellcheck: 'false',
  });
  const generated = h('div', { class: 'generated' });
  const generate = h('button', { type: 'button' }, 'Generate a key pair in this browser');
  generate.addEventListener('click', () => {
    // D-274: the 32-byte seed is the private key (FIPS 204 ξ); it stays in this closure and the download.
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const keys = ml_dsa65.keygen(seed);
    publicKey.value = bytesToHex(keys.publicKey);
    const file = new Blob(
      [
        `${JSON.stringify({ algorithm: 'ML-DSA-65', publicKey: bytesToHex(keys.publicKey), privateKeySeed: bytesToHex(seed) }, null, 2)}\n`,
      ],
      { type: 'application/json' },
    );
    const link = h(
      'a',
      { href: URL.createObjectURL(file), download: 'svckit-mldsa65-private-key.json' },
      'Download the private key',
    );
    generated.replaceChildren(
      h('p', {}, 'A new ML-DSA-65 key pair: the public key is in the form below; only it is sent when you register. '),
      link,
      h('p', { class: 'hint' }, 'Store the private key file now: this page does not keep it.'),
    );
    link.focus();
  });
  const register = form(
    'Register an ML-DSA public key',
    [
      field('Name', { name: 'name', required: true }),
      h(
        'div',
        { class: 'field' },
        h('label', { for: publicKey.id }, 'Public key (ML-DSA-65, hex, 1952 bytes)'),
        publicKey,
      ),
      h('div', { class: 'row' }, generate),
      generated,
      checks('Permissions', 'permissions', PERMISSIONS, ['accounts:read', 'transfers:read']),
      field('Limit to account ids (comma-separated; empty for every account)', { name: 'accountIds' }),
    ],
    'Register public key',
    async (data) => {
      const ids = listOf(data.get('accountIds'));
      const created = await answer(
        adminRegisterMldsaKey({
          client,
          body: {
            name: text(data, 'name'),
            publicKey: text(data, 'publicKey').toLowerCase(),
            permissions: permissionsOf(data),
            ...(ids.length ? { accountIds: ids } : {}),
          },
        }),
      );
      rerender();
      announce(`Registered ML-DSA key ${created.name}, fingerprint ${created.fingerprint}.`);
    },
  );
  main.replaceChildren(
    h('h2', {}, 'ML-DSA keys'),
    table(
      'ML-DSA keys',
      ['Name', 'Fingerprint', 'Permissions', 'Accounts', 'Created', ''],
      keyRows(
        mldsaKeys,
        (k) => (k as (typeof mldsaKeys)[number]).fingerprint,
        async (k) => {
          await answer(adminRevokeMldsaKey({ client, path: { id: k.id } }));
          rerender();
          announce(`Revoked ${k.name}.`);
        },
        error,
      ),
    ),
    error,
    register,
    limitForm('ML-DSA key', mldsaKeys, async (id, accountIds) => {
      await answer(adminUpdateMldsaKey({ client, path: { id }, body: { accountIds } }));
      rerender();
      announce('Saved the account limit.');
    }),
  );
}
