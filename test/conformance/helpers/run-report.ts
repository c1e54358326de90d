// A realistic run report (conformance/report/model.ts) for the report writers' tests: 22 checks over seven
// surfaces, hand-written and generated, three failed (a generated check with a shrunk case and a case as
// generated, a hand-written check with expected and actual values, a hand-written check with its request only),
// skips with their reasons, coverage per surface, a failed gate and cleanup that could not undo two things.
// The deployment under test writes the failure messages and bodies, so some carry markup a page must show as
// text. The counts are summed from the checks, not typed twice.
import type {
  Counts,
  ReportedCheck,
  ReportedFailure,
  ReportedSurface,
  RunReport,
} from '../../../conformance/report/model.ts';

/** Markup in texts the deployment wrote: a report page shows these as text and never runs them. */
export const HOSTILE = {
  message: 'HTTP 500 for <script>window.__pwnedMessage = 1</script> the transfer',
  body: '<script>window.__pwnedBody = 1</script><b>boom</b>',
  reason: 'answered <img src=x onerror="window.__pwnedReason = 1"> instead of the same transfer',
} as const;

const BASE = 'https://svc.example.test/';
const REPLAY = `svckit conformance --base ${BASE} --only`;

type CheckInput = Pick<ReportedCheck, 'id' | 'title' | 'surface' | 'status'> & Partial<ReportedCheck>;

const check = (c: CheckInput): ReportedCheck => ({
  origin: c.id.startsWith('generated.') ? 'generated' : 'hand-written',
  severity: 'MUST',
  source: 'spec: "the service answers with the documented status"',
  durationMs: 42,
  replay: `${REPLAY} ${c.id}`,
  ...c,
});

const cases = (
  passed: number,
  failed: number,
  skipped: number,
  bySurface: Record<string, Counts>,
  skipReasons: string[] = [],
) => ({
  passed,
  failed,
  skipped,
  bySurface,
  skipReasons,
});

/** The shrunk explorer case: its response body is the deployment's own, with markup in it. */
const shrunk: ReportedFailure = {
  surface: 'explorer',
  message: 'HTTP 500 is not documented for getTransaction (documented: 200, 400, 404)',
  operation: 'GET /api/tx/{hash}',
  reason: 'fuzz: path parameter hash at its maximum length',
  case: { operation: 'getTransaction', input: { 'path:hash': `0x${'f'.repeat(64)}` } },
  request: {
    method: 'GET',
    url: `${BASE}api/tx/0x${'f'.repeat(64)}?include=logs,receipt,trace&very_long_query=${'a'.repeat(120)}`,
    headers: { accept: 'application/json' },
  },
  response: { status: 500, headers: { 'content-type': 'text/html' }, body: HOSTILE.body },
  shrunk: true,
  caseFile: 'cases/1.json',
  replay: `svckit replay reports/cases/1.json --base ${BASE}`,
};

const asGenerated: ReportedFailure = {
  surface: 'institutional',
  message: HOSTILE.message,
  operation: 'POST /transfers',
  reason: 'coverage: amount at exclusiveMinimum',
  case: { operation: 'createTransfer', input: { body: { amount: '0', currency: 'EUR', to: 'acc_2' } } },
  request: {
    method: 'POST',
    url: `${BASE}v1/transfers`,
    headers: { authorization: 'Bearer [redacted]', 'content-type': 'application/json', 'idempotency-key': 'k-77' },
    body: '{"amount":"0","currency":"EUR","to":"acc_2"}',
  },
  response: {
    status: 500,
    headers: { 'content-type': 'application/json' },
    body: '{"error":"internal","detail":"division by zero"}',
  },
  shrunk: false,
  caseFile: 'cases/2.json',
  replay: `svckit replay reports/cases/2.json --base ${BASE}`,
};

/** The checks of the run, in registry order. */
export const CHECKS: readonly ReportedCheck[] = [
  check({
    id: 'institutional.transfers.create_201',
    title: 'A valid transfer is created with 201',
    surface: 'institutional',
    status: 'passed',
  }),
  check({
    id: 'institutional.transfers.idempotency_replay',
    title: 'A replayed Idempotency-Key answers the first transfer again',
    surface: 'institutional',
    status: 'failed',
    source: 'spec: "a request repeated with the same Idempotency-Key returns the original result"',
    reason: HOSTILE.reason,
    request: {
      method: 'POST',
      url: `${BASE}v1/transfers`,
      headers: { authorization: 'Bearer [redacted]', 'idempotency-key': 'idem-42' },
      body: '{"amount":"10.00","currency":"EUR","to":"acc_2"}',
    },
    expected: { status: 200, id: 'tr_1' },
    actual: { status: 201, id: 'tr_2' },
  }),
  check({
    id: 'institutional.accounts.schema',
    title: 'Accounts validate against the contract',
    surface: 'institutional',
    status: 'passed',
  }),
  check({
    id: 'institutional.auth.missing_key_401',
    title: 'A request without a key gets 401',
    surface: 'institutional',
    status: 'passed',
  }),
  check({
    id: 'webhooks.signature.valid',
    title: 'Each delivery carries a valid ML-DSA signature',
    surface: 'webhooks',
    status: 'passed',
  }),
  check({
    id: 'webhooks.retry.second_attempt',
    title: 'A refused delivery is tried again',
    surface: 'webhooks',
    status: 'skipped',
    reason: 'no webhook receiver was given (--webhook-receiver)',
  }),
  check({
    id: 'chain.eth_chainid.value',
    title: 'eth_chainId answers the documented chain id',
    surface: 'chain',
    status: 'passed',
  }),
  check({ id: 'chain.net_version', title: 'net_version agrees with eth_chainId', surface: 'chain', status: 'passed' }),
  check({
    id: 'chain.qbft.votes',
    title: 'Validator votes are counted',
    surface: 'chain',
    status: 'skipped',
    severity: 'SHOULD',
    reason: 'the run may not vote on the validator set (--allow-votes not given)',
  }),
  check({
    id: 'explorer.tx.schema',
    title: 'A transaction validates against the contract',
    surface: 'explorer',
    status: 'passed',
  }),
  check({
    id: 'explorer.validators.quorums',
    title: 'The quorums follow from the validator count',
    surface: 'explorer',
    status: 'failed',
    source: 'D-118: quorum = floor(2n/3) + 1',
    reason: 'quorum 3 for 4 validators, expected 3; commit quorum 2, expected 3',
    request: { method: 'GET', url: `${BASE}api/validators`, headers: { accept: 'application/json' } },
  }),
  check({
    id: 'wallet.token.alg_none',
    title: 'A token signed with alg none is refused',
    surface: 'wallet',
    status: 'passed',
  }),
  check({
    id: 'wallet.login.full_flow',
    title: 'Challenge, signatures and session',
    surface: 'wallet',
    status: 'passed',
  }),
  check({
    id: 'wallet.sync.ciphertext_only',
    title: 'Sync stores ciphertext only',
    surface: 'wallet',
    status: 'skipped',
    reason: 'the target has no wallet API (--wallet)',
  }),
  check({
    id: 'transport.tls.hybrid_group',
    title: 'TLS negotiates X25519MLKEM768',
    surface: 'transport',
    status: 'passed',
  }),
  check({
    id: 'evidence.document.schema',
    title: 'The evidence document validates',
    surface: 'evidence',
    status: 'passed',
  }),
  check({
    id: 'generated.not_a_server_error',
    title: 'No generated case gets a 5xx',
    surface: 'all',
    status: 'passed',
    cases: cases(412, 0, 0, {
      institutional: { passed: 180, failed: 0, skipped: 0 },
      explorer: { passed: 232, failed: 0, skipped: 0 },
    }),
  }),
  check({
    id: 'generated.status_code_conformance',
    title: 'Every answer has a documented status',
    surface: 'all',
    status: 'failed',
    source: 'the status is one the contract documents for the operation',
    reason: '2 cases failed',
    cases: cases(
      398,
      2,
      12,
      {
        institutional: { passed: 170, failed: 1, skipped: 9 },
        explorer: { passed: 228, failed: 1, skipped: 3 },
      },
      ['12 cases answered 429 and were waited out'],
    ),
    failures: [shrunk, asGenerated],
  }),
  check({
    id: 'generated.response_schema_conformance',
    title: "The body validates against the contract's schema",
    surface: 'all',
    status: 'passed',
    cases: cases(400, 0, 0, {
      institutional: { passed: 170, failed: 0, skipped: 0 },
      explorer: { passed: 230, failed: 0, skipped: 0 },
    }),
  }),
  check({
    id: 'generated.ignored_auth',
    title: 'Missing or invalid credentials give 401',
    surface: 'institutional',
    status: 'skipped',
    reason: 'no case applied',
    cases: cases(0, 0, 24, { institutional: { passed: 0, failed: 0, skipped: 24 } }, [
      'no API key was given (--api-key)',
    ]),
  }),
  check({
    id: 'generated.jsonrpc_error_codes',
    title: 'Every JSON-RPC error code is one the chain contract lists',
    surface: 'chain',
    status: 'passed',
    cases: cases(96, 0, 0, { chain: { passed: 96, failed: 0, skipped: 0 } }),
  }),
  check({
    id: 'generated.tls_hybrid_group',
    title: 'Every origin negotiates hybrid post-quantum TLS',
    surface: 'transport',
    status: 'passed',
    cases: cases(3, 0, 0, { transport: { passed: 3, failed: 0, skipped: 0 } }),
  }),
];

const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0 });
const add = (into: Counts, c: Counts) => {
  into.passed += c.passed;
  into.failed += c.failed;
  into.skipped += c.skipped;
};

/** Requests and coverage per surface, as the engine measured them. */
const MEASURED: Record<string, Pick<ReportedSurface, 'requests' | 'coverage'>> = {
  institutional: {
    requests: 612,
    coverage: {
      operations: { covered: 14, total: 18 },
      responses: { covered: 31, total: 52 },
      parameters: { covered: 40, total: 47 },
    },
  },
  webhooks: { requests: 0 },
  chain: {
    requests: 143,
    coverage: {
      operations: { covered: 22, total: 30 },
      responses: { covered: 22, total: 30 },
      parameters: { covered: 9, total: 25 },
    },
  },
  explorer: {
    requests: 488,
    coverage: {
      operations: { covered: 11, total: 11 },
      responses: { covered: 27, total: 33 },
      parameters: { covered: 19, total: 20 },
    },
  },
  wallet: { requests: 37 },
  transport: {
    requests: 9,
    coverage: {
      operations: { covered: 0, total: 0 },
      responses: { covered: 0, total: 0 },
      parameters: { covered: 0, total: 0 },
    },
  },
  evidence: { requests: 2 },
};

/** The run report: every figure summed from `CHECKS` and `MEASURED`. */
export function runReport(): RunReport {
  const summary = zero();
  const allCases = zero();
  const surfaces: Record<string, ReportedSurface> = {};
  for (const [name, m] of Object.entries(MEASURED)) surfaces[name] = { checks: zero(), cases: zero(), ...m };
  for (const c of CHECKS) {
    summary[c.status]++;
    const own = surfaces[c.surface];
    if (own) own.checks[c.status]++;
    if (!c.cases) continue;
    add(allCases, c.cases);
    for (const [name, n] of Object.entries(c.cases.bySurface)) if (surfaces[name]) add(surfaces[name].cases, n);
  }
  const sum = (k: 'operations' | 'responses' | 'parameters') =>
    Object.values(MEASURED).reduce(
      (r, m) => ({
        covered: r.covered + (m.coverage?.[k].covered ?? 0),
        total: r.total + (m.coverage?.[k].total ?? 0),
      }),
      { covered: 0, total: 0 },
    );
  return {
    kind: 'svckit-conformance-report',
    version: 1,
    startedAt: '2025-06-02T09:14:03.120Z',
    finishedAt: '2025-06-02T09:17:41.877Z',
    durationMs: 218_757,
    target: {
      kind: 'remote',
      base: BASE,
      wallet: 'https://wallet.svc.example.test/api/v1/',
      rpc: 'https://rpc.svc.example.test/a-very-long-path/that/keeps/going/and/going/to/test/wrapping/at/390/px',
      caCert: true,
      capabilities: ['admin', 'chain', 'explorer', 'institutional', 'wallet'],
    },
    command: `svckit conformance --base ${BASE} --wallet https://wallet.svc.example.test/api/v1/ --phases examples,coverage,fuzz --seed 1234 --min-score 80 --min-coverage 60 --report json,html`,
    phases: ['examples', 'coverage', 'fuzz'],
    seed: 1234,
    maxExamples: 100,
    requests: Object.values(MEASURED).reduce((n, m) => n + m.requests, 0),
    waited: { answers: 12, ms: 14_500 },
    summary,
    cases: allCases,
    score: 72.4,
    coverage: { operations: sum('operations'), responses: sum('responses'), parameters: sum('parameters') },
    surfaces,
    checks: [...CHECKS],
    gates: [
      { name: '--min-score', ok: false, message: 'score 72.4 is below --min-score 80' },
      { name: '--min-coverage', ok: true, message: 'operation coverage 79.7 % meets --min-coverage 60' },
    ],
    cleanup: {
      undone: { 'webhook endpoint': 3, 'API key': 5, account: 4 },
      failures: [
        'account acc_9f27: HTTP 409 the account has a pending transfer',
        'QBFT validator set 0x5b38da6a701c568545dcfcb03fcb875f56beddc4: the vote back was not included after 5 blocks',
      ],
    },
    interrupted: false,
  };
}
