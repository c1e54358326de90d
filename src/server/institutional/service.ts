/**
 * Handlers of `{base_url}/wallet/api/v1` (spec "A. Institutional REST API"). Each checks the caller's
 * permission (D-015), guards its input with the generated zod schemas, and answers the contract's objects.
 */
import { evmAddressParam } from '../http/evm-address.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Hex } from 'viem';
import { z } from 'zod';
import type { RouteHandlers } from '../../../generated/institutional/fastify.gen';
import type { Account, TransferCreated } from '@svckit/sdk/institutional';
import {
  zInstitutionalConnectBankBody,
  zInstitutionalCreateTransferBody,
  zInstitutionalGetAccountPath,
  zInstitutionalGetAccountStatementPath,
  zInstitutionalGetAccountStatementQuery,
  zInstitutionalGetTransferPath,
  zInstitutionalListAccountsQuery,
  zInstitutionalListTransfersQuery,
} from '@svckit/sdk/institutional/zod';
import type { Upstream } from '../../node/upstream.ts';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import type { AccountRow, AccountStore } from '../../ledger/accounts.ts';
import type { Credential } from '../../ledger/credentials.ts';
import { parseAmount } from '../../ledger/money.ts';
import { integrationInstructions } from '../../ledger/pacs008.ts';
import type { TransferEngine, TransferRow } from '../../ledger/transfers/engine.ts';
import type { PaymentService } from '../../ledger/payments/service.ts';
import type { Database } from '../../storage/database.ts';
import { authorize } from '../auth/authenticate.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict } from '../http/guards.ts';
import { notImplementedHandler } from '../http/operations.ts';
import { withIntegers } from '../http/query.ts';
import { claimKey, releaseKey, requestDigest, storeResponse } from './idempotency.ts';
import { paymentHandlers } from './payments.ts';
import { credentialOf } from './request-credential.ts';
import { findTransfer, statementPage, transferPage } from './store.ts';
import { accountView, directionFor, statementView, transferView } from './views.ts';

/** D-046: 1 to 255 printable ASCII characters, neither the first nor the last a space. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]([\x20-\x7E]{0,253}[\x21-\x7E])?$/;

/** What the institutional handlers use. */
export type InstitutionalDeps = {
  db: Database;
  accounts: AccountStore;
  engine: TransferEngine;
  /** The pacs.008 intake (D-053); absent in stacks without payments. */
  payments?: PaymentService;
  upstream: Upstream;
  clock: Clock;
  platformBIC: string;
};

const ACCOUNT_ID = { id: 'an account id (acc_ + 26 Crockford base32) or reference (ACC- + 10 digits)' };
const PAGING = { page: 'an integer from 1 to 999999999', limit: 'an integer from 1 to 200' };
/** POST /transfers, built once (zod compiles each new schema). */
const institutionalCreateTransferBody = zInstitutionalCreateTransferBody.extend({ amount: z.unknown() }).strict();

/** Builds the handlers. */
export function institutionalHandlers(deps: InstitutionalDeps): RouteHandlers {
  const balances = async (rows: AccountRow[]) =>
    (
      await deps.upstream.batchResults<Hex>(
        rows.map((r) => ({ method: 'eth_getBalance', params: [r.address, 'latest'] })),
      )
    ).map((b) => BigInt(b));
  const views = async (rows: AccountRow[]): Promise<Account[]> => {
    const wei = await balances(rows);
    return rows.map((row, i) => accountView(row, wei[i]!));
  };
  /** 404 when the account does not exist or the credential may not use it: the same answer (D-128). */
  const readableAccount = async (request: FastifyRequest, id: string) => {
    const account = await deps.accounts.find(id);
    // D-128: the text names the id or reference as given, never the account a reference resolves to.
    if (!account || !mayUse(credentialOf(request), account.id))
      throw new RestError(ErrorCode.NOT_FOUND, `account ${id} does not exist`);
    return account;
  };
  /** The account named in a query or body: 400 UNKNOWN_ACCOUNT when unknown, 404 for a restricted credential (D-128). */
  const namedAccount = async (credential: Credential, field: string, id: string) => {
    refuseUnusable(credential, field, id);
    const account = await deps.accounts.find(id);
    if (!account) throw new RestError(ErrorCode.UNKNOWN_ACCOUNT, `"${field}" ${id} does not exist`);
    return account;
  };

  return {
    // D-053: a stack without the payment intake answers 501 for it.
    ...(deps.payments
      ? paymentHandlers(deps.payments)
      : { institutionalSubmitPacs008Payment: notImplementedHandler('institutionalSubmitPacs008Payment') }),
    institutionalListAccounts: async (request, reply) => {
      authorize(credentialOf(request), 'accounts:read');
      const query = guard(strict(zInstitutionalListAccountsQuery), withIntegers(request.query), PAGING);
      const { total, rows } = await deps.accounts.page(query.page, query.limit, credentialOf(request).accountIds);
      return reply.code(200).send({ total, page: query.page, limit: query.limit, accounts: await views(rows) });
    },
    institutionalGetAccount: async (request, reply) => {
      authorize(credentialOf(request), 'accounts:read');
      const { id } = guard(zInstitutionalGetAccountPath, request.params, ACCOUNT_ID);
      const [view] = await views([await readableAccount(request, id)]);
      return reply.code(200).send(view!);
    },
    institutionalGetAccountStatement: async (request, reply) => {
      authorize(credentialOf(request), 'accounts:read');
      const { id } = guard(zInstitutionalGetAccountStatementPath, request.params, ACCOUNT_ID);
      const query = guard(strict(zInstitutionalGetAccountStatementQuery), withIntegers(request.query), PAGING);
      const account = await readableAccount(request, id);
      const { total, rows } = await statementPage(deps.db, account, query.page, query.limit);
      return reply.code(200).send({
        total,
        page: query.page,
        limit: query.limit,
        transactions: rows.map((r) => statementView(r, account)),
      });
    },
    institutionalListTransfers: async (request, reply) => {
      const credential = credentialOf(request);
      authorize(credential, 'transfers:read');
      const query = guard(strict(zInstitutionalListTransfersQuery), withIntegers(request.query), {
        ...PAGING,
        accountId: 'an account id (acc_ + 26 Crockford base32)',
      });
      if (query.accountId) {
        const account = await namedAccount(credential, 'accountId', query.accountId);
        const { total, rows } = await transferPage(deps.db, [account.id], query.page, query.limit);
        return reply.code(200).send({
          total,
          page: query.page,
          limit: query.limit,
          transfers: rows.map((r) => transferView(r, directionFor(r, account))),
        });
      }
      const { total, rows } = await transferPage(deps.db, credential.accountIds, query.page, query.limit);
      const own = (r: (typeof rows)[number]) =>
        credential.accountIds === null || credential.accountIds.includes(r.accountId ?? '');
      return reply.code(200).send({
        total,
        page: query.page,
        limit: query.limit,
        transfers: rows.map((r) => transferView(r, own(r) ? 'out' : 'in')),
      });
    },
    institutionalCreateTransfer: async (request, reply) => institutionalCreateTransfer(deps, request, reply),
    institutionalGetTransfer: async (request, reply) => {
      const credential = credentialOf(request);
      authorize(credential, 'transfers:read');
      const { reference } = guard(zInstitutionalGetTransferPath, request.params, {
        reference: 'a transfer reference TXNYYYYMMDD-XXXXXXXX',
      });
      const row = await findTransfer(deps.db, reference);
      if (!row) throw new RestError(ErrorCode.NOT_FOUND, `transfer ${reference} does not exist`);
      const recipient = await deps.accounts.findByAddress(row.toAddress as Hex);
      const involved = [row.accountId, recipient?.id].filter((id): id is string => Boolean(id));
      // D-128: a transfer between accounts outside a restricted credential is answered as an unknown one.
      if (!involved.some((id) => mayUse(credential, id)))
        throw new RestError(ErrorCode.NOT_FOUND, `transfer ${reference} does not exist`);
      const sentByCaller =
        row.accountId !== null && (credential.accountIds === null || credential.accountIds.includes(row.accountId));
      return reply.code(200).send(transferView(row, sentByCaller ? 'out' : 'in'));
    },
    institutionalConnectBank: async (request, reply) => {
      authorize(credentialOf(request), 'bank:connect');
      const body = guard(strict(zInstitutionalConnectBankBody), request.body, {
        institutionBIC:
          'a bank identifier code: 4 letters, 2 letters, 2 letters or digits, optional 3 letters or digits',
        accountId: 'an account id (acc_ + 26 Crockford base32)',
      });
      const account = await namedAccount(credentialOf(request), 'accountId', body.accountId);
      return reply.code(200).send(
        integrationInstructions({
          institutionBIC: body.institutionBIC,
          accountId: account.id,
          settlementAddress: account.address,
          platformBIC: deps.platformBIC,
        }),
      );
    },
  };
}

/** Whether the credential may use the account (D-015: every account, or only those of its `accountIds`). */
const mayUse = (credential: Credential, accountId: string) =>
  credential.accountIds === null || credential.accountIds.includes(accountId);

/**
 * D-128: a restricted credential naming, in a query or body, an account outside its list gets 404 as for an
 * unknown one (its list holds only existing accounts, so no read is needed), naming only the id it gave.
 */
function refuseUnusable(credential: Credential, field: string, accountId: string): void {
  if (!mayUse(credential, accountId))
    throw new RestError(ErrorCode.NOT_FOUND, `"${field}" ${accountId} does not exist`);
}

/** POST /transfers with the optional Idempotency-Key (D-046). */
async function institutionalCreateTransfer(deps: InstitutionalDeps, request: FastifyRequest, reply: FastifyReply) {
  const credential = credentialOf(request);
  authorize(credential, 'transfers:write');
  // The amount is left to parseAmount (D-026, D-033) so that "1.234" gets INVALID_AMOUNT and a message naming the rule.
  const body = guard(institutionalCreateTransferBody, request.body, {
    fromAccountId: 'an account id (acc_ + 26 Crockford base32)',
    to: 'a 0x-prefixed 20-byte address',
    memo: 'a string of at most 512 characters',
  });
  const amountWei = parseAmount('amount', body.amount);
  const to: Hex = evmAddressParam('to', body.to);
  // fromAccountId is an account id (never a reference), so the grant is checked on it as given; the engine
  // refuses an unknown account (400 UNKNOWN_ACCOUNT) when it reads the sender, which saves a read per transfer.
  refuseUnusable(credential, 'fromAccountId', body.fromAccountId);
  const key = request.headers['idempotency-key'];
  // D-046: HTTP drops a field value's leading and trailing whitespace, so the key neither starts nor ends with one.
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    throw new RestError(
      ErrorCode.INVALID_PARAMETER,
      '"Idempotency-Key" expected 1 to 255 printable ASCII characters, not starting or ending with a space',
    );
  }
  const claim = key ? await claimKey(deps.db, credential.id, key, requestDigest(body), dateOf(deps.clock)) : undefined;
  if (claim && 'replay' in claim)
    return reply
      .code(claim.replay.status as 201)
      .header('location', location(claim.replay.body))
      .send(claim.replay.body as never);
  const answerOf = (row: TransferRow) => ({
    ok: row.status === 'pending',
    txRef: row.txRef,
    txHash: row.txHash,
    status: row.status as TransferCreated['status'],
  });
  // D-046: the response is stored with the transfer, in its transaction; a failed broadcast then changes it.
  const storeBody =
    key && claim
      ? (tx: Database, row: TransferRow) =>
          storeResponse(tx, credential.id, key, claim.claimedAt, { status: null, body: answerOf(row) })
      : undefined;
  let row: TransferRow;
  try {
    row = await deps.engine.create(
      { accountId: body.fromAccountId, to, amountWei, ...(body.memo ? { memo: body.memo } : {}) },
      storeBody,
    );
  } catch (error) {
    if (key && claim) await releaseKey(deps.db, credential.id, key, claim.claimedAt);
    throw error;
  }
  const answer = answerOf(row);
  if (key && claim) await storeResponse(deps.db, credential.id, key, claim.claimedAt, { status: 201, body: answer });
  return reply.code(201).header('location', location(answer)).send(answer);
}

const location = (body: unknown) => `/wallet/api/v1/transfers/${(body as { txRef: string }).txRef}`;
