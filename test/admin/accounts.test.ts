// The admin console's account operations (specs/admin.openapi.yaml: /accounts, /accounts/{id}/fund,
// /kek/rotate; D-001, D-002, D-008, D-036, D-050, D-061) over real HTTPS against the in-process reference
// stack (real Anvil, instant mining, real PGlite), and their effect on the institutional API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../conformance/http.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { accountBody, admin, eventually, expectContract, wallet } from './support.ts';

let target: Target;

// The institutional rate limit (10/s per IP) is lifted: these tests poll faster than that from one IP.
beforeAll(async () => {
  target = await referenceTarget({ env: { SVC_RATE_LIMIT: '0' } });
});
afterAll(async () => {
  await target?.close?.();
});

const A = 'admin.openapi.yaml';
const I = 'institutional.openapi.yaml';
type Account = {
  id: string;
  reference: string;
  email: string;
  status: string;
  dailyLimit: number;
  singleLimit: number;
  address: string;
  balance: string;
};
type Statement = {
  total: number;
  transactions: {
    txRef: string;
    txHash: string;
    direction: string;
    amount: string;
    status: string;
    blockNumber: number | null;
  }[];
};

const create = async (email: string, extra: Record<string, unknown> = {}) => {
  const res = await admin(target, 'POST', '/accounts', accountBody(email, extra));
  await expectContract(A, 'POST /accounts', res, 201);
  return res.json as Account;
};
const readerKey = async (permissions: string[] = ['accounts:read', 'transfers:read', 'transfers:write']) =>
  ((await admin(target, 'POST', '/api-keys', { name: 'test', permissions })).json as { token: string }).token;

describe('accounts', () => {
  it('creates an approved account with a reference, its limits as numbers and a zero balance', async () => {
    const account = await create('payments@bank-a.example', { dailyLimit: 50000.5, singleLimit: 10000.25 });
    expect(account).toMatchObject({
      email: 'payments@bank-a.example',
      status: 'approved',
      dailyLimit: 50000.5,
      singleLimit: 10000.25,
      balance: '0.00',
    });
    expect(account.reference).toMatch(/^ACC-\d{10}$/);
    expect(account.id).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(account.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // D-036: the path takes the id or the reference.
    for (const id of [account.id, account.reference]) {
      const read = await admin(target, 'GET', `/accounts/${id}`);
      await expectContract(A, 'GET /accounts/{id}', read, 200);
      expect(read.json).toEqual(account);
    }
  });

  it('takes an optional reference once (409 DUPLICATE_REFERENCE), and assigned references skip it', async () => {
    const auto = await create('auto@bank.example');
    const next = Number(auto.reference.slice(4)) + 2; // the explicit create below uses number +1
    const explicit = await create('explicit@bank.example', { reference: `ACC-${String(next).padStart(10, '0')}` });
    expect(explicit.reference).toBe(`ACC-${String(next).padStart(10, '0')}`);
    const again = await admin(
      target,
      'POST',
      '/accounts',
      accountBody('again@bank.example', { reference: explicit.reference }),
    );
    await expectContract(A, 'POST /accounts', again, 409);
    expect(again.json).toEqual({
      error: `"reference" ${explicit.reference} is already in use`,
      code: 'DUPLICATE_REFERENCE',
    });
    // The next assigned number is the one the administrator took: the server must skip it, not fail.
    const after = await create('after@bank.example');
    expect(after.reference).toMatch(/^ACC-\d{10}$/);
    expect(after.reference).not.toBe(explicit.reference);
  });

  it('refuses bad bodies with 400 naming the field (D-002 limits)', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        accountBody('a@b.example', { dailyLimit: 100.005 }),
        /^"dailyLimit" expected a number from 0 with at most 2 fraction digits, got 100.005$/,
      ],
      [accountBody('a@b.example', { singleLimit: -5 }), /^"singleLimit" expected .*got -5$/],
      [accountBody('a@b.example', { singleLimit: '10' }), /^"singleLimit"/],
      [accountBody('not-an-email'), /^"email"/],
      [accountBody('a@b.example', { reference: 'ACC-42' }), /^"reference"/],
      [accountBody('a@b.example', { status: 'approved' }), /^"status" expected nothing/],
      [{ email: 'a@b.example', dailyLimit: 1 }, /^"singleLimit"/],
    ];
    for (const [body, message] of cases) {
      const res = await admin(target, 'POST', '/accounts', body);
      await expectContract(A, 'POST /accounts', res, 400);
      expect((res.json as { error: string }).error).toMatch(message);
    }
    await expectContract(
      A,
      'GET /accounts/{id}',
      await admin(target, 'GET', '/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA'),
      404,
    );
    await expectContract(A, 'GET /accounts/{id}', await admin(target, 'GET', '/accounts/42'), 400);
  });

  it('lists accounts newest first with paging (D-025) and a status filter', async () => {
    const newest = await create('newest@bank.example');
    const page = await admin(target, 'GET', '/accounts?page=1&limit=2');
    await expectContract(A, 'GET /accounts', page, 200);
    const body = page.json as { total: number; page: number; limit: number; accounts: Account[] };
    expect(body).toMatchObject({ page: 1, limit: 2 });
    expect(body.accounts).toHaveLength(2);
    expect(body.accounts[0]).toEqual(newest);
    const past = await admin(target, 'GET', `/accounts?page=${body.total + 1}&limit=1`);
    await expectContract(A, 'GET /accounts', past, 200);
    expect(past.json).toMatchObject({ total: body.total, accounts: [] });
    for (const query of ['limit=201', 'limit=0', 'page=0', 'page=abc', 'status=active', 'other=1']) {
      await expectContract(A, 'GET /accounts', await admin(target, 'GET', `/accounts?${query}`), 400);
    }
    const defaults = (await admin(target, 'GET', '/accounts')).json as { page: number; limit: number };
    expect(defaults).toMatchObject({ page: 1, limit: 50 });

    await admin(target, 'PATCH', `/accounts/${newest.id}`, { status: 'suspended' });
    const suspended = await admin(target, 'GET', '/accounts?status=suspended&limit=200');
    await expectContract(A, 'GET /accounts', suspended, 200);
    const listed = (suspended.json as { accounts: Account[] }).accounts;
    expect(listed.map((a) => a.id)).toContain(newest.id);
    expect(listed.every((a) => a.status === 'suspended')).toBe(true);
  });

  it('changes status per D-008 (invalid transitions 409) and limits per D-002', async () => {
    const account = await create('status@bank.example');
    const patch = (body: unknown) => admin(target, 'PATCH', `/accounts/${account.id}`, body);
    const suspended = await patch({ status: 'suspended' });
    await expectContract(A, 'PATCH /accounts/{id}', suspended, 200);
    expect(suspended.json).toMatchObject({ status: 'suspended' });
    await expectContract(A, 'PATCH /accounts/{id}', await patch({ status: 'suspended' }), 200); // no-op
    const limits = await patch({ dailyLimit: 75000, singleLimit: 15000.1 });
    await expectContract(A, 'PATCH /accounts/{id}', limits, 200);
    expect(limits.json).toMatchObject({ status: 'suspended', dailyLimit: 75000, singleLimit: 15000.1 });
    await expectContract(A, 'PATCH /accounts/{id}', await patch({ status: 'closed' }), 200);
    const reopen = await patch({ status: 'approved' });
    await expectContract(A, 'PATCH /accounts/{id}', reopen, 409);
    expect(reopen.json).toEqual({
      error: '"status" cannot change from closed to approved; closed is terminal',
      code: 'INVALID_TRANSITION',
    });
    const empty = await patch({});
    await expectContract(A, 'PATCH /accounts/{id}', empty, 400);
    expect((empty.json as { error: string }).error).toBe(
      'body expected at least one of status, dailyLimit, singleLimit, got {}',
    );
    await expectContract(A, 'PATCH /accounts/{id}', await patch({ status: 'active' }), 400);
    await expectContract(
      A,
      'PATCH /accounts/{id}',
      await admin(target, 'PATCH', '/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA', { status: 'closed' }),
      404,
    );
    // A closed account cannot be funded (400).
    const fund = await admin(target, 'POST', `/accounts/${account.id}/fund`, { amount: '1.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', fund, 400);
  });
});

describe('funding on the local chain (D-061)', () => {
  it('mines the funding, answers the new balance and shows the credit in the statement as `in`', async () => {
    const account = await create('funded@bank.example');
    const res = await admin(target, 'POST', `/accounts/${account.reference}/fund`, { amount: '1000.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', res, 200);
    const funded = res.json as { accountId: string; address: string; amount: string; txHash: string; balance: string };
    expect(funded).toMatchObject({
      ok: true,
      accountId: account.id,
      address: account.address,
      amount: '1000.00',
      balance: '1000.00',
    });
    const receipt = (await rpc(target, 'eth_getTransactionReceipt', [funded.txHash])).json as {
      result: { status: string; to: string } | null;
    };
    expect(receipt.result).toMatchObject({ status: '0x1', to: account.address.toLowerCase() });

    const token = await readerKey(['accounts:read']);
    const read = await wallet(target, 'GET', `/accounts/${account.id}`, token);
    await expectContract(I, 'GET /accounts/{id}', read, 200);
    expect(read.json).toMatchObject({ balance: '1000.00' });
    const statement = await wallet(target, 'GET', `/accounts/${account.id}/statement`, token);
    await expectContract(I, 'GET /accounts/{id}/statement', statement, 200);
    const lines = (statement.json as Statement).transactions;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ txHash: funded.txHash, direction: 'in', amount: '1000.00', status: 'confirmed' });
    expect(lines[0]!.txRef).toMatch(/^TXN\d{8}-[0-9A-Z]{8}$/);
    expect(lines[0]!.blockNumber).toBeGreaterThan(0);
  });

  it('funds concurrently without nonce collisions', async () => {
    const account = await create('concurrent@bank.example');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => admin(target, 'POST', `/accounts/${account.id}/fund`, { amount: '10.50' })),
    );
    for (const res of results) await expectContract(A, 'POST /accounts/{id}/fund', res, 200);
    expect(new Set(results.map((r) => (r.json as { txHash: string }).txHash)).size).toBe(6);
    const read = await admin(target, 'GET', `/accounts/${account.id}`);
    expect(read.json).toMatchObject({ balance: '63.00' });
  });

  it('refuses bad amounts (400 INVALID_AMOUNT) and unknown accounts (404)', async () => {
    const account = await create('amounts@bank.example');
    for (const amount of ['0', '1.234', '-1', 1, '1e3']) {
      const res = await admin(target, 'POST', `/accounts/${account.id}/fund`, { amount });
      await expectContract(A, 'POST /accounts/{id}/fund', res, 400);
      expect(res.json).toMatchObject({ code: 'INVALID_AMOUNT' });
    }
    await expectContract(
      A,
      'POST /accounts/{id}/fund',
      await admin(target, 'POST', `/accounts/${account.id}/fund`, { amount: '1.00', to: '0x00' }),
      400,
    );
    await expectContract(
      A,
      'POST /accounts/{id}/fund',
      await admin(target, 'POST', '/accounts/ACC-9999999999/fund', { amount: '1.00' }),
      404,
    );
    // The genesis account holds 10^9 units (src/node/anvil.ts): more is refused before anything is signed or stored.
    const tooMuch = await admin(target, 'POST', `/accounts/${account.id}/fund`, { amount: '2000000000.00' });
    await expectContract(A, 'POST /accounts/{id}/fund', tooMuch, 400);
    expect(tooMuch.json).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const token = await readerKey(['accounts:read']);
    expect(((await wallet(target, 'GET', `/accounts/${account.id}/statement`, token)).json as Statement).total).toBe(0);
  });
});

describe('key-encryption key rotation (D-061)', () => {
  it('re-wraps every account key, and the accounts still sign transfers that confirm', async () => {
    const sender = await create('sender@bank.example');
    const recipient = await create('recipient@bank.example');
    await expectContract(
      A,
      'POST /accounts/{id}/fund',
      await admin(target, 'POST', `/accounts/${sender.id}/fund`, { amount: '500.00' }),
      200,
    );
    const total = ((await admin(target, 'GET', '/accounts?limit=1')).json as { total: number }).total;

    const first = await admin(target, 'POST', '/kek/rotate');
    await expectContract(A, 'POST /kek/rotate', first, 200);
    const rotation = first.json as { kekId: string; previousKekId: string; rewrappedKeys: number };
    expect(rotation).toMatchObject({ ok: true, rewrappedKeys: total });
    expect(rotation.kekId).not.toBe(rotation.previousKekId);
    // Concurrent rotations: each one completes or is refused with 409, never both half-way.
    const many = await Promise.all(Array.from({ length: 3 }, () => admin(target, 'POST', '/kek/rotate')));
    for (const res of many) {
      expect([200, 409]).toContain(res.status);
      await expectContract(A, 'POST /kek/rotate', res, res.status);
      if (res.status === 409) expect(res.json).toMatchObject({ code: 'ROTATION_IN_PROGRESS' });
    }
    const second = await admin(target, 'POST', '/kek/rotate');
    await expectContract(A, 'POST /kek/rotate', second, 200);
    expect(second.json).toMatchObject({ rewrappedKeys: total });

    // The sender's private key is still usable after the rotations: a transfer signs, broadcasts and confirms.
    const token = await readerKey();
    const sent = await wallet(target, 'POST', '/transfers', token, {
      fromAccountId: sender.id,
      to: recipient.address,
      amount: '125.50',
      memo: 'after rotation',
    });
    await expectContract(I, 'POST /transfers', sent, 201);
    const created = sent.json as { ok: boolean; txRef: string; status: string };
    expect(created).toMatchObject({ ok: true, status: 'pending' });
    const confirmed = await eventually(async () => {
      const res = await wallet(target, 'GET', `/transfers/${created.txRef}`, token);
      return (res.json as { status: string }).status === 'confirmed' ? res : undefined;
    });
    await expectContract(I, 'GET /transfers/{reference}', confirmed, 200);
    expect(confirmed.json).toMatchObject({
      amount: '125.50',
      fromAddress: sender.address,
      toAddress: recipient.address,
    });
    const balances = await Promise.all(
      [sender, recipient].map(async (a) => ((await admin(target, 'GET', `/accounts/${a.id}`)).json as Account).balance),
    );
    expect(balances).toEqual(['374.50', '125.50']);
    // A newly created account after the rotation also signs (its key is wrapped under the new KEK).
    const late = await create('late@bank.example');
    await expectContract(
      A,
      'POST /accounts/{id}/fund',
      await admin(target, 'POST', `/accounts/${late.id}/fund`, { amount: '5.00' }),
      200,
    );
    const lateSent = await wallet(target, 'POST', '/transfers', token, {
      fromAccountId: late.id,
      to: sender.address,
      amount: '1.00',
    });
    await expectContract(I, 'POST /transfers', lateSent, 201);
  });
});
