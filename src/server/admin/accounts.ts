/**
 * Admin handlers for institutional accounts and their keys at rest (spec "Account (A)"; D-001, D-002, D-008,
 * D-036, D-050, D-061): create (the server generates the key pairs), list, read, change status or limits,
 * fund on the local chain, and rotate the key-encryption key.
 */
import type { Hex } from 'viem';
import { z } from 'zod';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import type { Account } from '@svckit/sdk/admin';
import {
  zAdminCreateAccountBody,
  zAdminFundAccountBody,
  zAdminFundAccountPath,
  zAdminGetAccountPath,
  zAdminListAccountsQuery,
  zAdminUpdateAccountBody,
  zAdminUpdateAccountPath,
} from '@svckit/sdk/admin/zod';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Clock } from '@svckit/sdk/clock';
import { ACCOUNT_TRANSITIONS, type AccountRow } from '../../ledger/accounts.ts';
import { formatUnits, parseAmount, parseLimit } from '../../ledger/money.ts';
import type { LedgerRuntime } from '../../ledger/runtime.ts';
import type { Database } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict, requireSome } from '../http/guards.ts';
import { withIntegers } from '../http/query.ts';
import { accountView } from '../institutional/views.ts';
import type { Faucet } from './funding.ts';

type Handlers = Pick<
  RouteHandlers,
  | 'adminCreateAccount'
  | 'adminListAccounts'
  | 'adminGetAccount'
  | 'adminUpdateAccount'
  | 'adminFundAccount'
  | 'adminRotateKek'
>;

/** The amount is left to parseAmount; built once (zod compiles each new schema). */
const fundAccountBody = zAdminFundAccountBody.extend({ amount: z.unknown() }).strict();
const ACCOUNT_ID = { id: 'an account id (acc_ + 26 Crockford base32) or reference (ACC- + 10 digits)' };
// D-002: JSON numbers from 0 with at most 2 fraction digits (parseLimit checks the digits exactly).
const LIMIT = 'a number from 0 with at most 2 fraction digits';
const ACCOUNT_FIELDS = {
  email: 'an e-mail address of at most 254 characters',
  dailyLimit: LIMIT,
  singleLimit: LIMIT,
  reference: 'an account reference (ACC- + 10 digits)',
  status: 'one of approved, suspended, closed',
};

/** The account, KEK and funding handlers. */
export function accountHandlers(deps: {
  db: Database;
  chain: ChainRuntime;
  ledger: LedgerRuntime;
  clock: Clock;
  faucet: Faucet;
}): Handlers {
  const { chain, ledger } = deps;
  const now = () => new Date(deps.clock.now());
  const { faucet } = deps;
  let rotating = false;

  const views = async (rows: AccountRow[]): Promise<Account[]> => {
    const wei = await chain.upstream.batchResults<Hex>(
      rows.map((r) => ({ method: 'eth_getBalance', params: [r.address, 'latest'] })),
    );
    return rows.map((row, i) => accountView(row, BigInt(wei[i]!)));
  };
  const existing = async (id: string) => {
    const account = await ledger.accounts.find(id);
    if (!account) throw new RestError(ErrorCode.NOT_FOUND, `account ${id} not found`);
    return account;
  };

  return {
    adminCreateAccount: async (request, reply) => {
      const body = guard(strict(zAdminCreateAccountBody), request.body, ACCOUNT_FIELDS);
      const dailyLimitWei = parseLimit('dailyLimit', body.dailyLimit);
      const singleLimitWei = parseLimit('singleLimit', body.singleLimit);
      const taken = () =>
        new RestError(ErrorCode.DUPLICATE_REFERENCE, `"reference" ${body.reference} is already in use`);
      if (body.reference && (await ledger.accounts.find(body.reference))) throw taken();
      let row: AccountRow;
      try {
        row = await ledger.accounts.create(
          {
            email: body.email,
            dailyLimitWei,
            singleLimitWei,
            ...(body.reference ? { reference: body.reference } : {}),
          },
          now(),
        );
      } catch (error) {
        if (body.reference && isUniqueViolation(error, 'reference')) throw taken(); // a concurrent create took it
        throw error;
      }
      // D-050: accounts created through the admin API may send on the permissioned chain.
      await chain.permissions?.allow(row.address as Hex, 'account');
      const [view] = await views([row]);
      return reply.code(201).send(view!);
    },
    adminListAccounts: async (request, reply) => {
      const query = guard(strict(zAdminListAccountsQuery), withIntegers(request.query), {
        page: 'an integer from 1 to 999999999',
        limit: 'an integer from 1 to 200',
      });
      const { total, rows } = await ledger.accounts.page(query.page, query.limit, null, query.status);
      return reply.code(200).send({ total, page: query.page, limit: query.limit, accounts: await views(rows) });
    },
    adminGetAccount: async (request, reply) => {
      const { id } = guard(zAdminGetAccountPath, request.params, ACCOUNT_ID);
      const [view] = await views([await existing(id)]);
      return reply.code(200).send(view!);
    },
    adminUpdateAccount: async (request, reply) => {
      const { id } = guard(zAdminUpdateAccountPath, request.params, ACCOUNT_ID);
      const body = guard(strict(zAdminUpdateAccountBody), request.body, ACCOUNT_FIELDS);
      requireSome(body, ['status', 'dailyLimit', 'singleLimit']);
      const limits = {
        ...(body.dailyLimit !== undefined ? { dailyLimitWei: parseLimit('dailyLimit', body.dailyLimit) } : {}),
        ...(body.singleLimit !== undefined ? { singleLimitWei: parseLimit('singleLimit', body.singleLimit) } : {}),
      };
      const account = await existing(id);
      // "Setting the current status again is a no-op."
      const status = body.status !== undefined && body.status !== account.status ? body.status : undefined;
      if (status !== undefined && !ACCOUNT_TRANSITIONS[account.status]?.includes(status))
        throw invalidTransition(account.status, status);
      let updated = account;
      if (status !== undefined || Object.keys(limits).length > 0) {
        const row = await ledger.accounts.update(account.id, {
          ...limits,
          ...(status !== undefined ? { status, fromStatus: account.status } : {}),
        });
        if (!row) {
          // Another request changed the status between our read and our write (D-058: the state forbids it).
          const now = await existing(account.id);
          throw invalidTransition(now.status, status!);
        }
        updated = row;
        // D-152: a closed account's address leaves the chain's sender allow-list.
        if (status === 'closed') await chain.permissions?.disallow(row.address as Hex);
      }
      const [view] = await views([updated]);
      return reply.code(200).send(view!);
    },
    adminFundAccount: async (request, reply) => {
      const { id } = guard(zAdminFundAccountPath, request.params, ACCOUNT_ID);
      // The amount is left to parseAmount (the same DecimalAmount rule, D-026) for the contract's INVALID_AMOUNT code.
      const body = guard(fundAccountBody, request.body);
      const amountWei = parseAmount('amount', body.amount);
      const account = await existing(id);
      if (account.status === 'closed')
        throw new RestError(
          ErrorCode.ACCOUNT_CLOSED,
          `account ${account.id} is closed; a closed account cannot be funded`,
        );
      if (chain.mode === 'external') {
        // D-061: funding is a development aid of the local chain only: the embedded node, or a shared one whose
        // funding account every instance holds (D-191).
        throw new RestError(
          ErrorCode.FUNDING_UNAVAILABLE,
          'funding is only available on the local chain; CHAIN_RPC_URL is set',
        );
      }
      const { row, balanceWei } = await faucet.fund(account.address as Hex, amountWei);
      return reply.code(200).send({
        ok: true,
        accountId: account.id,
        address: account.address,
        amount: formatUnits(amountWei, 2),
        txHash: row.txHash,
        balance: formatUnits(balanceWei, 2),
      });
    },
    adminRotateKek: async (_request, reply) => {
      if (ledger.keyring.external) {
        throw new RestError(
          ErrorCode.KEK_EXTERNAL,
          'the key-encryption key comes from SVC_KEK and is managed outside svckit; it cannot be rotated through the console',
        );
      }
      // D-061: one rotation at a time; a second request while one runs is refused, not queued.
      if (rotating)
        throw new RestError(ErrorCode.ROTATION_IN_PROGRESS, 'a key-encryption key rotation is already in progress');
      rotating = true;
      try {
        const { previousKekId, kekId, rewrapped } = await ledger.accounts.rotateKek();
        return reply
          .code(200)
          .send({ ok: true, kekId, previousKekId, rewrappedKeys: rewrapped, rotatedAt: now().toISOString() });
      } finally {
        rotating = false;
      }
    },
  };
}

/** D-008 transitions; D-058: a transition the status forbids is a 409. */
function invalidTransition(from: string, to: string) {
  const allowed = ACCOUNT_TRANSITIONS[from] ?? [];
  const why = allowed.length === 0 ? `${from} is terminal` : `from ${from} only ${allowed.join(' or ')} is allowed`;
  return new RestError(ErrorCode.INVALID_TRANSITION, `"status" cannot change from ${from} to ${to}; ${why}`);
}
