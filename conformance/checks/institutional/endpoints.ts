// Surface A, endpoint by endpoint: each operation answers every status it documents (200/201, 400, 401, 403,
// 404 where the contract declares them; 429 is covered by the rate-limit checks), each body valid against
// specs/institutional.openapi.yaml, and the 2xx bodies agree with the admin API and the chain (JSON-RPC).
import type { Hex } from 'viem';
import type { Check, CheckContext, CheckVerdict } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import { rpcBatch, rpcResult } from '../explorer/support.ts';
import { type CheckDefinition, verdict } from '../define.ts';
import {
  adminJson,
  codeOf,
  contractProblems,
  defineCheck,
  fixture,
  inst,
  serverNow,
  twoDecimals,
  unknownAccountId,
  WITH_ADMIN,
  type AccountView,
  type Created,
  type Credential,
  type Fixture,
  type Operation,
  type TransferView,
} from './support.ts';

/** Collects contract problems of several answers. */
function collector(ctx: CheckContext) {
  const problems: string[] = [];
  let last: HttpResult | undefined;
  return {
    problems,
    get last() {
      return last;
    },
    /**
     * Sends `operation` (its method) to `path` with `credential` and `body`, collects the contract problems of
     * the answer against `status` (`what` names the case in them) and returns the answer.
     */
    async call(
      operation: Operation,
      path: string,
      credential: Credential,
      status: number,
      what: string,
      body?: unknown,
    ) {
      const method = operation.slice(0, operation.indexOf(' '));
      last = await inst(ctx.target, method, path, credential, { body });
      problems.push(...(await contractProblems(ctx, operation, last, status, what)));
      return last;
    },
  };
}

/** The problems and last answer of a check, collected as it goes. */
type Collector = ReturnType<typeof collector>;

/**
 * Defines a check on the target's shared fixture (so it needs the admin API); its run gets the context, the
 * fixture and a fresh collector.
 */
function fixtureCheck(
  definition: Omit<CheckDefinition, 'run' | 'needs'> & {
    run(on: { ctx: CheckContext; f: Fixture; c: Collector }): Promise<CheckVerdict>;
  },
): Check {
  return defineCheck({
    ...definition,
    needs: WITH_ADMIN,
    run: async (ctx) => definition.run({ ctx, f: await fixture(ctx.target), c: collector(ctx) }),
  });
}

/**
 * One request of a statuses check: the status the contract documents for it, its name in problem lines, its
 * path below /wallet/api/v1 (query included) and credential, its body, and a further problem of its answer
 * (e.g. a wrong error code), reported right after the contract problems.
 */
type StatusCase = [
  status: number,
  what: string,
  path: string,
  credential: Credential,
  options?: { body?: unknown; also?: (res: HttpResult) => string | undefined },
];

/**
 * A check that sends the cases to `operation` one after the other and fails on any answer whose status or
 * body is not the one the contract documents for it.
 */
function statusesCheck(
  definition: Omit<CheckDefinition, 'run' | 'needs'> & { operation: Operation; cases: (f: Fixture) => StatusCase[] },
): Check {
  const { operation, cases, ...metadata } = definition;
  return fixtureCheck({
    ...metadata,
    async run({ f, c }) {
      for (const [status, what, path, credential, options] of cases(f)) {
        const res = await c.call(operation, path, credential, status, what, options?.body);
        const problem = options?.also?.(res);
        if (problem) c.problems.push(problem);
      }
      return verdict(c.problems, c.last);
    },
  });
}

/** The problem of a 400 whose code is not UNKNOWN_ACCOUNT (D-022), named `what`. */
const unknownAccountCode =
  (what: string) =>
  (res: HttpResult): string | undefined =>
    res.status === 400 && codeOf(res) !== 'UNKNOWN_ACCOUNT'
      ? `${what}: expected code UNKNOWN_ACCOUNT, got ${JSON.stringify(codeOf(res))}`
      : undefined;

const PAGE = { page: 1, limit: 50 };

/** Both accounts of the fixture's first transfer with the direction it has for each (D-003): out, then in. */
const sidesOfFirst = (f: Fixture) =>
  [
    [f.sender, 'out'],
    [f.recipient, 'in'],
  ] as const;

/** The problem, if any, of the transfer `txRef` missing from `items` or listed there with another direction; `where` names the list. */
function directionProblems(
  items: readonly { txRef: string; direction: string }[],
  txRef: string,
  direction: string,
  where: string,
): string[] {
  const item = items.find((t) => t.txRef === txRef);
  return item?.direction === direction
    ? []
    : [`${txRef} ${where}: expected direction ${direction}, got ${JSON.stringify(item?.direction)}`];
}

/** The account and statement endpoints. */
function accountChecks(): Check[] {
  return [
    fixtureCheck({
      id: 'institutional.accounts.list',
      title: 'GET /accounts lists the accounts the credential may read, newest first, with paging',
      source: { decision: 'D-009' },
      async run({ f, c }) {
        const scoped = await c.call('GET /accounts', '/accounts', { bearer: f.scoped }, 200, 'scoped key');
        const body = scoped.json as { total: number; page: number; limit: number; accounts: AccountView[] };
        if (c.problems.length === 0) {
          const ids = body.accounts.map((a) => a.id).sort();
          if (body.total !== 2 || ids.join() !== [f.sender.id, f.recipient.id].sort().join()) {
            c.problems.push(`a key limited to 2 accounts listed total ${body.total}, ids ${ids.join(', ')}`);
          }
          if (body.page !== PAGE.page || body.limit !== PAGE.limit)
            c.problems.push(`defaults: expected page 1 limit 50, got page ${body.page} limit ${body.limit}`);
        }
        const all = await c.call('GET /accounts', '/accounts?limit=200', { bearer: f.full }, 200, 'unrestricted key');
        const listed = new Set(((all.json as { accounts?: AccountView[] }).accounts ?? []).map((a) => a.id));
        for (const a of [f.sender, f.recipient, f.outsider])
          if (!listed.has(a.id)) c.problems.push(`an unrestricted key does not see account ${a.id}`);
        return verdict(c.problems, c.last);
      },
    }),
    statusesCheck({
      id: 'institutional.accounts.list.statuses',
      title: 'GET /accounts answers 400 (limit 500), 401 (no credentials) and 403 (no accounts:read)',
      source: { decision: 'D-009' },
      operation: 'GET /accounts',
      cases: (f) => [
        [400, 'limit 500', '/accounts?limit=500', { bearer: f.full }],
        [401, 'no credentials', '/accounts', null],
        [403, 'key without accounts:read', '/accounts', { bearer: f.transfersOnly }],
      ],
    }),
    fixtureCheck({
      id: 'institutional.accounts.get',
      title:
        'GET /accounts/{id} by id or reference answers the Account the admin API shows, with the balance of eth_getBalance',
      source: { quote: 'path id: string, the internal account identifier' },
      async run({ ctx, f, c }) {
        const expected = await adminJson<AccountView>(ctx.target, 'GET', `/accounts/${f.sender.id}`, undefined, 200);
        for (const [what, credential, id] of [
          ['by id, bearer', { bearer: f.full }, f.sender.id],
          ['by reference, bearer', { bearer: f.full }, f.sender.reference],
          ['by id, SVC-MLDSA', { mldsa: f.keys }, f.sender.id],
        ] as const) {
          const res = await c.call('GET /accounts/{id}', `/accounts/${id}`, credential, 200, what);
          if (res.status !== 200) continue;
          const wei = BigInt(await rpcResult<Hex>(ctx.target, 'eth_getBalance', [expected.address, 'latest']));
          const got = res.json as AccountView;
          const want = { ...expected, balance: twoDecimals(wei) };
          for (const key of Object.keys(want) as (keyof AccountView)[]) {
            if (got[key] !== want[key])
              c.problems.push(`${what}: ${key} expected ${JSON.stringify(want[key])}, got ${JSON.stringify(got[key])}`);
          }
        }
        return verdict(c.problems, c.last);
      },
    }),
    statusesCheck({
      id: 'institutional.accounts.get.statuses',
      title:
        'GET /accounts/{id} answers 400 (malformed id), 401 and 404 (unknown account, or one outside the key: D-128)',
      source: { quote: 'resource not found' },
      operation: 'GET /accounts/{id}',
      cases: (f) => [
        [400, 'id "42"', '/accounts/42', { bearer: f.full }],
        [401, 'no credentials', `/accounts/${f.sender.id}`, null],
        [404, 'account outside the key (D-128)', `/accounts/${f.outsider.id}`, { bearer: f.scoped }],
        [404, 'unknown id', `/accounts/${unknownAccountId()}`, { bearer: f.full }],
        [404, 'unknown reference', '/accounts/ACC-9999999999', { bearer: f.full }],
      ],
    }),
    fixtureCheck({
      id: 'institutional.statement',
      title:
        'GET /accounts/{id}/statement pages the account transactions (defaults page 1, limit 50) with confirmed lines complete',
      source: { quote: 'query page (integer, 1-based, default 1), limit (integer, default 50, maximum 200)' },
      async run({ f, c }) {
        const res = await c.call(
          'GET /accounts/{id}/statement',
          `/accounts/${f.sender.id}/statement`,
          { bearer: f.full },
          200,
          'sender',
        );
        if (res.status !== 200) return verdict(c.problems, res);
        const page = res.json as {
          total: number;
          page: number;
          limit: number;
          transactions: (TransferView & { direction: string })[];
        };
        if (page.page !== 1 || page.limit !== 50)
          c.problems.push(`defaults: expected page 1 and limit 50, got page ${page.page}, limit ${page.limit}`);
        const line = page.transactions.find((t) => t.txRef === f.first.txRef);
        if (!line) c.problems.push(`the statement of ${f.sender.id} lacks its transfer ${f.first.txRef}`);
        else {
          const want = {
            txHash: f.first.txHash,
            amount: '1.00',
            toAddress: f.recipient.address,
            status: 'confirmed',
            blockNumber: f.first.blockNumber,
            timestamp: f.first.timestamp,
          };
          for (const [key, value] of Object.entries(want)) {
            if ((line as Record<string, unknown>)[key] !== value)
              c.problems.push(
                `line ${f.first.txRef}: ${key} expected ${JSON.stringify(value)}, got ${JSON.stringify((line as Record<string, unknown>)[key])}`,
              );
          }
        }
        if (page.total < page.transactions.length)
          c.problems.push(`total ${page.total} is below the ${page.transactions.length} lines returned`);
        return verdict(c.problems, res);
      },
    }),
    fixtureCheck({
      id: 'institutional.statement.direction',
      title:
        'A transfer between two platform accounts is out on the sender statement and in on the recipient statement',
      source: { decision: 'D-003' },
      async run({ f, c }) {
        for (const [account, direction] of sidesOfFirst(f)) {
          const res = await c.call(
            'GET /accounts/{id}/statement',
            `/accounts/${account.id}/statement`,
            { bearer: f.full },
            200,
            account.id,
          );
          const lines = (res.json as { transactions?: { txRef: string; direction: string }[] }).transactions ?? [];
          c.problems.push(...directionProblems(lines, f.first.txRef, direction, `on the statement of ${account.id}`));
        }
        return verdict(c.problems, c.last);
      },
    }),
    statusesCheck({
      id: 'institutional.statement.statuses',
      title:
        'GET /accounts/{id}/statement answers 400 (malformed id, page 0), 401, 403 (no accounts:read) and 404 (also for an account outside the key: D-128)',
      source: {
        quote: 'missing or invalid credentials give 401; a key without permission for the operation gives 403.',
      },
      operation: 'GET /accounts/{id}/statement',
      cases: (f) => [
        [400, 'id "42"', '/accounts/42/statement', { bearer: f.full }],
        [400, 'page 0', `/accounts/${f.sender.id}/statement?page=0`, { bearer: f.full }],
        [401, 'no credentials', `/accounts/${f.sender.id}/statement`, null],
        [403, 'key without accounts:read', `/accounts/${f.sender.id}/statement`, { bearer: f.transfersOnly }],
        [404, 'account outside the key (D-128)', `/accounts/${f.outsider.id}/statement`, { bearer: f.scoped }],
        [404, 'unknown account', `/accounts/${unknownAccountId()}/statement`, { bearer: f.full }],
      ],
    }),
  ];
}

/** The transfer and bank endpoints. */
function transferChecks(): Check[] {
  return [
    fixtureCheck({
      id: 'institutional.transfers.list',
      title:
        'GET /transfers filters by accountId, pages newest first, and sets direction relative to the account (D-054)',
      source: { decision: 'D-010' },
      async run({ f, c }) {
        for (const [account, direction] of sidesOfFirst(f)) {
          const res = await c.call(
            'GET /transfers',
            `/transfers?accountId=${account.id}&limit=200`,
            { bearer: f.full },
            200,
            `accountId ${account.id}`,
          );
          const listed = (res.json as { transfers?: TransferView[] }).transfers ?? [];
          c.problems.push(...directionProblems(listed, f.first.txRef, direction, `listed for ${account.id}`));
          const times = listed.map((t) => Date.parse(t.createdAt));
          if (times.some((t, i) => i > 0 && t > times[i - 1]!))
            c.problems.push(`the list for ${account.id} is not newest first`);
        }
        const outsider = await c.call(
          'GET /transfers',
          `/transfers?accountId=${f.outsider.id}`,
          { bearer: f.full },
          200,
          'account without transfers',
        );
        if ((outsider.json as { total?: number }).total !== 0)
          c.problems.push(`an account without transfers listed total ${(outsider.json as { total?: number }).total}`);
        const scoped = await c.call(
          'GET /transfers',
          '/transfers?limit=200',
          { bearer: f.scoped },
          200,
          'scoped key, no filter',
        );
        const addresses = new Set([f.sender.address, f.recipient.address].map((a) => a.toLowerCase()));
        for (const t of (scoped.json as { transfers?: TransferView[] }).transfers ?? []) {
          if (!addresses.has(t.fromAddress.toLowerCase()) && !addresses.has(t.toAddress.toLowerCase()))
            c.problems.push(`a scoped key lists ${t.txRef}, which involves none of its accounts`);
        }
        return verdict(c.problems, c.last);
      },
    }),
    statusesCheck({
      id: 'institutional.transfers.list.statuses',
      title:
        'GET /transfers answers 400 (malformed or unknown accountId), 401, 403 (no transfers:read) and 404 (account outside the key: D-128)',
      source: { decision: 'D-022' },
      operation: 'GET /transfers',
      cases: (f) => [
        [400, 'accountId "42"', '/transfers?accountId=42', { bearer: f.full }],
        [
          400,
          'unknown accountId',
          `/transfers?accountId=${unknownAccountId()}`,
          { bearer: f.full },
          { also: unknownAccountCode('unknown accountId') },
        ],
        [401, 'no credentials', '/transfers', null],
        [403, 'key without transfers:read', '/transfers', { bearer: f.readOnly }],
        [404, 'account outside the key (D-128)', `/transfers?accountId=${f.outsider.id}`, { bearer: f.scoped }],
      ],
    }),
    fixtureCheck({
      id: 'institutional.transfers.create',
      title:
        'POST /transfers answers 201 with ok, txRef (TXN + UTC date), txHash, status pending and a Location that reads it back',
      source: { decision: 'D-055' },
      async run({ ctx, f, c }) {
        const body = { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.25' };
        const res = await c.call('POST /transfers', '/transfers', { bearer: f.full }, 201, 'valid request', body);
        if (res.status !== 201) return verdict(c.problems, res);
        const created = res.json as Created;
        const day = new Date(serverNow(ctx.target)).toISOString().slice(0, 10).replace(/-/g, '');
        if (!created.ok || created.status !== 'pending')
          c.problems.push(`expected ok true and status pending, got ${JSON.stringify(created)}`);
        if (!created.txRef.startsWith(`TXN${day}-`))
          c.problems.push(`txRef ${created.txRef} does not carry today's UTC date TXN${day}-`);
        const location = res.headers.location;
        if (location !== `/wallet/api/v1/transfers/${created.txRef}`)
          c.problems.push(
            `Location expected /wallet/api/v1/transfers/${created.txRef}, got ${JSON.stringify(location)}`,
          );
        const read = await c.call(
          'GET /transfers/{reference}',
          `/transfers/${created.txRef}`,
          { bearer: f.full },
          200,
          'the new transfer',
        );
        const transfer = read.json as TransferView;
        if (
          read.status === 200 &&
          (transfer.txHash !== created.txHash ||
            transfer.amount !== '0.25' ||
            transfer.fromAddress !== f.sender.address)
        ) {
          c.problems.push(`GET ${created.txRef} does not match the request: ${JSON.stringify(transfer)}`);
        }
        return verdict(c.problems, res);
      },
    }),
    statusesCheck({
      id: 'institutional.transfers.create.statuses',
      title: 'POST /transfers answers 400 (missing field, unknown account), 401, and 403 (no transfers:write)',
      source: {
        quote: 'missing or invalid credentials give 401; a key without permission for the operation gives 403.',
      },
      operation: 'POST /transfers',
      cases: (f) => {
        const body = { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.01' };
        return [
          [400, 'no "to"', '/transfers', { bearer: f.full }, { body: { fromAccountId: f.sender.id, amount: '0.01' } }],
          [
            400,
            'unknown fromAccountId',
            '/transfers',
            { bearer: f.full },
            { body: { ...body, fromAccountId: unknownAccountId() }, also: unknownAccountCode('unknown fromAccountId') },
          ],
          [
            400,
            'a field the contract does not define',
            '/transfers',
            { bearer: f.full },
            { body: { ...body, extra: 1 } },
          ],
          [401, 'no credentials', '/transfers', null, { body }],
          [403, 'key without transfers:write', '/transfers', { bearer: f.readOnly }, { body }],
        ];
      },
    }),
    fixtureCheck({
      id: 'institutional.transfers.get',
      title:
        'GET /transfers/{reference} answers the Transfer, in agreement with eth_getTransactionByHash, the receipt and its block',
      source: { quote: 'path reference: the txRef, format TXNYYYYMMDD-XXXXXXXX' },
      async run({ ctx, f, c }) {
        const res = await c.call(
          'GET /transfers/{reference}',
          `/transfers/${f.first.txRef}`,
          { mldsa: f.keys },
          200,
          f.first.txRef,
        );
        if (res.status !== 200) return verdict(c.problems, res);
        const got = res.json as TransferView;
        const [tx, receipt] = await rpcBatch<{ from: Hex; to: Hex; value: Hex; blockNumber: Hex } | null>(ctx.target, [
          { method: 'eth_getTransactionByHash', params: [got.txHash] },
          { method: 'eth_getTransactionReceipt', params: [got.txHash] },
        ]);
        if (!tx || !receipt) return verdict([`the node knows no mined transaction ${got.txHash}`], res);
        const block = await rpcResult<{ timestamp: Hex }>(ctx.target, 'eth_getBlockByNumber', [
          receipt.blockNumber,
          false,
        ]);
        const want = {
          txRef: f.first.txRef,
          fromAddress: f.sender.address,
          toAddress: f.recipient.address,
          amount: twoDecimals(BigInt(tx.value)),
          direction: 'out',
          status: 'confirmed',
          blockNumber: Number(BigInt(receipt.blockNumber)),
          timestamp: Number(BigInt(block.timestamp)),
        };
        for (const [key, value] of Object.entries(want)) {
          if ((got as Record<string, unknown>)[key] !== value)
            c.problems.push(
              `${key}: expected ${JSON.stringify(value)}, got ${JSON.stringify((got as Record<string, unknown>)[key])}`,
            );
        }
        if (tx.from.toLowerCase() !== f.sender.address.toLowerCase())
          c.problems.push(`the chain transaction is from ${tx.from}, not the account ${f.sender.address}`);
        return verdict(c.problems, res);
      },
    }),
    statusesCheck({
      id: 'institutional.transfers.get.statuses',
      title:
        'GET /transfers/{reference} answers 400 (malformed txRef), 401, 403 (no transfers:read) and 404 (unknown txRef)',
      source: { quote: 'resource not found' },
      operation: 'GET /transfers/{reference}',
      cases: (f) => [
        [400, 'txRef "TXN-42"', '/transfers/TXN-42', { bearer: f.full }],
        [401, 'no credentials', `/transfers/${f.first.txRef}`, null],
        [403, 'key without transfers:read', `/transfers/${f.first.txRef}`, { bearer: f.readOnly }],
        [404, 'unknown txRef', '/transfers/TXN20000101-ZZZZZZZZ', { bearer: f.full }],
      ],
    }),
    fixtureCheck({
      id: 'institutional.bank.connect',
      title:
        'POST /bank/connect answers pacs.008.001.08 instructions whose field mappings cover every element D-011 lists',
      source: { decision: 'D-011' },
      async run({ f, c }) {
        for (const bic of ['DEUTDEFFXXX', 'DEUTDEFF']) {
          const request = { institutionBIC: bic, accountId: f.sender.id };
          const res = await c.call('POST /bank/connect', '/bank/connect', { bearer: f.full }, 200, bic, request);
          if (res.status !== 200) continue;
          const body = res.json as {
            institutionBIC: string;
            accountId: string;
            settlementAddress: string;
            fieldMappings: { element: string; xpath: string }[];
          };
          if (
            body.institutionBIC !== bic ||
            body.accountId !== f.sender.id ||
            body.settlementAddress !== f.sender.address
          ) {
            c.problems.push(
              `${bic}: expected institutionBIC ${bic}, accountId ${f.sender.id}, settlementAddress ${f.sender.address}, got ${body.institutionBIC}, ${body.accountId}, ${body.settlementAddress}`,
            );
          }
          const xpaths = body.fieldMappings.map((m) => m.xpath);
          for (const element of PACS008_ELEMENTS) {
            if (!xpaths.some((x) => x.includes(element))) c.problems.push(`${bic}: no field mapping for ${element}`);
          }
        }
        return verdict(c.problems, c.last);
      },
    }),
    statusesCheck({
      id: 'institutional.bank.connect.statuses',
      title: 'POST /bank/connect answers 400 (malformed BIC, unknown account), 401 and 403 (no bank:connect)',
      source: { decision: 'D-011' },
      operation: 'POST /bank/connect',
      cases: (f) => {
        const body = { institutionBIC: 'DEUTDEFFXXX', accountId: f.sender.id };
        return [
          [
            400,
            'BIC "DEUT-DE"',
            '/bank/connect',
            { bearer: f.full },
            { body: { institutionBIC: 'DEUT-DE', accountId: f.sender.id } },
          ],
          [
            400,
            'unknown account',
            '/bank/connect',
            { bearer: f.full },
            { body: { ...body, accountId: unknownAccountId() }, also: unknownAccountCode('unknown accountId') },
          ],
          [401, 'no credentials', '/bank/connect', null, { body }],
          [403, 'key without bank:connect', '/bank/connect', { bearer: f.readOnly }, { body }],
        ];
      },
    }),
  ];
}

/** D-011: the pacs.008 elements the instructions must map (as found in each mapping's XPath). */
const PACS008_ELEMENTS = [
  'GrpHdr/MsgId',
  'GrpHdr/CreDtTm',
  'GrpHdr/NbOfTxs',
  'SttlmInf/SttlmMtd',
  'PmtId/InstrId',
  'PmtId/EndToEndId',
  'PmtId/UETR',
  'IntrBkSttlmAmt',
  'IntrBkSttlmAmt/@Ccy',
  'ChrgBr',
  'Dbtr/',
  'DbtrAgt/FinInstnId/BICFI',
  'Cdtr/',
  'CdtrAgt/FinInstnId/BICFI',
  'RmtInf',
];

/** Every `institutional.accounts.*`, `institutional.statement.*`, `institutional.transfers.*` and `institutional.bank.*` check. */
export function institutionalEndpointChecks(): Check[] {
  return [...accountChecks(), ...transferChecks()];
}
