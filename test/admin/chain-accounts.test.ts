// The local chain's sender allow-list through the admin API (specs/admin.openapi.yaml /chain/accounts;
// D-050, D-151, D-152), and the server-held funding account across restarts of one data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { settings } from '../../src/storage/schema.ts';
import { openStack } from './stack.ts';
import { accountBody, admin, expectContract } from './support.ts';

const A = 'admin.openapi.yaml';
type Page = {
  total: number;
  page: number;
  limit: number;
  fundingAddress: string;
  accounts: { address: string; reason: string }[];
};
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

let target: Target;
beforeAll(async () => {
  target = await referenceTarget({ persist: true });
});
afterAll(async () => {
  await target?.close?.();
});

describe('POST, GET and DELETE /chain/accounts (D-152)', () => {
  it('refuses malformed bodies and addresses with 400 in the error shape', async () => {
    for (const body of [
      {},
      { address: '0x12' },
      { address: fresh(), extra: 1 },
      { address: fresh(), amount: '1.234' },
      { address: fresh(), amount: 5 },
    ]) {
      const res = await admin(target, 'POST', '/chain/accounts', body);
      await expectContract(A, 'POST /chain/accounts', res, 400);
    }
    const bad = await admin(target, 'DELETE', '/chain/accounts/0xnothex');
    await expectContract(A, 'DELETE /chain/accounts/{address}', bad, 400);
    const paging = await admin(target, 'GET', '/chain/accounts?limit=500');
    await expectContract(A, 'GET /chain/accounts', paging, 400);
  });

  it('allows without funding, keeps one entry when added twice, lists newest first, and 404s an unlisted removal', async () => {
    const first = fresh();
    const second = fresh();
    const one = await admin(target, 'POST', '/chain/accounts', { address: first });
    await expectContract(A, 'POST /chain/accounts', one, 201);
    expect(one.json).toMatchObject({ address: first, reason: 'external', amount: null, txHash: null, balance: '0.00' });
    await expectContract(
      A,
      'POST /chain/accounts',
      await admin(target, 'POST', '/chain/accounts', { address: second }),
      201,
    );
    await expectContract(
      A,
      'POST /chain/accounts',
      await admin(target, 'POST', '/chain/accounts', { address: first }),
      201,
    );
    const page = (await admin(target, 'GET', '/chain/accounts?limit=2')).json as Page;
    expect(page.accounts.map((a) => a.address)).toEqual([second, first]);
    expect(page.limit).toBe(2);
    await expectContract(
      A,
      'DELETE /chain/accounts/{address}',
      await admin(target, 'DELETE', `/chain/accounts/${first.toLowerCase()}`),
      204,
    );
    const again = await admin(target, 'DELETE', `/chain/accounts/${first}`);
    await expectContract(A, 'DELETE /chain/accounts/{address}', again, 404);
  });

  it("leaves a platform account's address to /accounts (409 PLATFORM_ACCOUNT)", async () => {
    const created = (await admin(target, 'POST', '/accounts', accountBody('platform@bank.example'))).json as {
      address: string;
    };
    const add = await admin(target, 'POST', '/chain/accounts', { address: created.address });
    await expectContract(A, 'POST /chain/accounts', add, 409);
    expect(add.json).toMatchObject({ code: 'PLATFORM_ACCOUNT' });
    const remove = await admin(target, 'DELETE', `/chain/accounts/${created.address}`);
    await expectContract(A, 'DELETE /chain/accounts/{address}', remove, 409);
  });

  it('needs the administrator token', async () => {
    const res = await admin(target, 'POST', '/chain/accounts', { address: fresh() }, null);
    await expectContract(A, 'POST /chain/accounts', res, 401);
  });
});

describe('the funding account (D-151)', () => {
  it('is the same after a restart on the same data directory, and its balance carries on in the reloaded chain', async () => {
    const before = (await admin(target, 'GET', '/chain/accounts')).json as Page;
    const funded = await admin(target, 'POST', '/chain/accounts', { address: fresh(), amount: '1234.00' });
    await expectContract(A, 'POST /chain/accounts', funded, 201);
    await target.reference!.restart!();
    const after = (await admin(target, 'GET', '/chain/accounts')).json as Page;
    expect(after.fundingAddress).toBe(before.fundingAddress);
    // The reloaded state matches the key: the funding account still signs fundings that are mined.
    const again = await admin(target, 'POST', '/chain/accounts', { address: fresh(), amount: '1.00' });
    await expectContract(A, 'POST /chain/accounts', again, 201);
    expect(again.json).toMatchObject({ balance: '1.00' });
  });

  it('is a different, fresh one on every in-memory stack', async () => {
    const other = await referenceTarget();
    try {
      const mine = ((await admin(target, 'GET', '/chain/accounts')).json as Page).fundingAddress;
      const theirs = ((await admin(other, 'GET', '/chain/accounts')).json as Page).fundingAddress;
      expect(theirs).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(theirs).not.toBe(mine);
    } finally {
      await other.close?.();
    }
  });
});

describe('a data directory an older svckit funded from the published accounts (D-151)', () => {
  it('gets a funding account of its own on the first start with a sealed mnemonic, credited although the chain has blocks', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svckit-upgrade-'));
    try {
      const first = await openStack({}, dir);
      let token: string;
      try {
        token = first.target.adminToken!;
        await expectContract(
          A,
          'POST /chain/accounts',
          await admin(first.target, 'POST', '/chain/accounts', { address: fresh(), amount: '3.00' }),
          201,
        );
        // As an older svckit left it: blocks on the chain, no mnemonic stored.
        await first.stack.database.db.delete(settings).where(eq(settings.key, 'chain_mnemonic'));
      } finally {
        await first.close();
      }
      const second = await openStack({}, dir);
      try {
        second.target.adminToken = token;
        const funded = await admin(second.target, 'POST', '/chain/accounts', { address: fresh(), amount: '1.00' });
        await expectContract(A, 'POST /chain/accounts', funded, 201);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
