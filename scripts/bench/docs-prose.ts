/**
 * The explanations of docs/benchmarks.md, kept here because the page is generated (docs.ts): what each
 * benchmark does, what it is held to, the machine's caveats, and the history of earlier measurements.
 */

/** The text under the page's title. */
export const INTRODUCTION = `\`npm run bench -- <crypto|wallet-keystore|wallet|webhooks|rpc|institutional|growth|proxy|packages>\` runs one benchmark
against the real parts (Anvil, TLS with X25519MLKEM768, PGlite or PostgreSQL when \`DATABASE_URL\` is set) and
prints its figures; with \`--json <file>\` it also writes them (scripts/bench/result.ts: each figure, its
target, the ratio measured / limit, the verdict, and the machine). \`npm run bench -- all\` runs them all one
after the other into reports/bench/ and prints one table; \`npm run bench -- docs\` writes this page from that
folder. Targets are checked there, never in timed unit tests.

The project's machine has 2 cores. The load generator runs in the same process as the server (a worker
thread), and Anvil and PostgreSQL share the same two cores, so each request pays for its client, its server,
its node and its database. The machine's speed varies between runs (bearer GETs on PostgreSQL: 1,505 and
3,029 req/s minutes apart on the same code), so only runs made back to back compare. Targets are therefore
stated against a physical limit measured in the same run where one exists (one ML-DSA-65 verification,
direct Anvil, the same query on the smallest table), not as absolute latencies.`;

/** Per benchmark: its section title, the text before its figures and the text after them. */
export const BENCH_PROSE: Record<string, { title: string; before: string; after?: string }> = {
  packages: {
    title: 'The packages: `npm run bench -- packages`',
    before: `What the two packages cost their users (D-229, D-230). The cold start of \`svckit --help\` from the
compiled package layout (bin/svckit.js loading dist/cli/, no TypeScript loader) against a bare \`node -e 0\`
on the same Node, medians of 15 runs: at most 5x. Then both tarballs, packed as \`npm pack\` makes them,
installed into empty projects outside the checkout: \`@svckit/sdk\` alone (at most 30 packages) and \`svckit\`
with it (its count and time). The install times include the registry and the machine's npm cache as it was.`,
  },
  crypto: {
    title: 'Cryptography: `npm run bench -- crypto`',
    before: `ACVP and Wycheproof run time per implementation, the interop matrix, and ML-DSA-65 sign/verify and
ML-KEM-768 encapsulate/decapsulate operations per second per backend: OpenSSL through node:crypto (with keys
already imported, and through the façade, bytes in and bytes out), @noble/post-quantum, and liboqs through
@oqs/liboqs-js (WebAssembly). \`--large-data\` adds the SHA-3 large data tests. No targets: these figures
explain the others.`,
  },
  'wallet-keystore': {
    title: 'Wallet keystore: `npm run bench -- wallet-keystore`',
    before: `Argon2id unlock time of the wallet keystore with the chosen parameters (D-120: RFC 9106 second
recommended option, m = 64 MiB, t = 3, p = 4): node:crypto's Argon2id (OpenSSL) with AES-256-GCM, the
extension's path (@noble/hashes Argon2id in JavaScript with WebCrypto AES-256-GCM), and a whole wallet unlock
(keystore, BIP-39 seed and ML-DSA-65 identity). The unlock is meant to be slow; no target.`,
  },
  wallet: {
    title: 'Wallet sessions: `npm run bench -- wallet`',
    before: `Sessions per second through POST /auth/challenge and POST /auth/verify over real TLS (X25519MLKEM768)
to the wallet origin of an in-process reference stack, D-024 limits lifted. Each session is a fresh
challenge, both client signatures (EIP-191 secp256k1 and ML-DSA-65) and a verify that checks both and signs
an ML-DSA-65 JWT. The clients run in worker threads, so their signing is not billed to the server; the
server's main-thread busy time per session comes from its event-loop utilisation. Then the server-side
pieces alone, in process (median of 300).`,
  },
  webhooks: {
    title: 'Webhook dispatcher: `npm run bench -- webhooks`',
    before: `The webhook dispatcher on embedded PGlite (PostgreSQL with \`DATABASE_URL\`), sending to a local HTTPS
receiver in a worker thread. Throughput: delivery jobs are stored through the outbox (untimed), then the
dispatcher runs at concurrency 1 and 64 until every job is recorded delivered (claim, sign, POST over
keep-alive TLS, record); target at least 1,000 deliveries per second at concurrency 64. Schedule accuracy:
jobs whose first attempt gets a 500 are retried; the injectable clock is moved to just before the first
retry falls due and real time does the rest, so the lateness measured (observed minus target delay of the
30 s retry) is the dispatcher's; no retry may be early.`,
  },
  rpc: {
    title: 'Chain JSON-RPC gateway: `npm run bench -- rpc`',
    before: `The JSON-RPC gateway against Anvil called directly on loopback, all paths driven by the same
node:http(s) load generator in a worker thread: \`anvil\` (Anvil's own HTTP endpoint, the baseline),
\`gateway-http\` (the same \`rpcRoutes\` plugin and dispatcher in a plain-HTTP Fastify instance: the
gateway's cost without TLS), \`gateway-tls\` (\`{base_url}/rpc\` of the running stack, TLS 1.3
X25519MLKEM768, keep-alive connections, as viem and ethers use it), \`gateway-tls-new\` (a full hybrid
handshake per request) and \`minimal-tls\` (the bound, D-196: a bare \`node:https\` server in the same process
with the same TLS options, answering the gateway's own answer as a constant with keep-alive). The paths take
turns for 3 rounds and each reports its median run; "gateway CPU" is the main thread's CPU time per request.
Targets: at concurrency 1, gateway p50 at most 1.2x direct Anvil once TLS is
accounted for (gateway-http, and gateway-tls with the handshake amortised); at concurrency 32, gateway-tls
requests per second at least 0.8x direct Anvil's for every method measured, with the gateway, the load
generator and Anvil sharing two cores. On the embedded chain both methods measured are answered from the
gateway's cache of sealed blocks and the head (Anvil CPU per gateway request: 0), so the ratio holds the
gateway's own TLS, HTTP, JSON and validation work against Anvil's HTTP server. No HTTPS server in Node reaches
0.8x Anvil here: \`minimal-tls\` itself stays below it (D-196), so the target held against the bound is
gateway-tls at least 0.9x minimal-tls requests per second at concurrency 32; the 0.8x figures keep their
verdict. Then \`/api/txns\` cold (the 20 s cache expired on the injectable clock) and warm. Last, hostile load
(D-203, scripts/bench/rpc-hostile.ts): blocks sealed per minute on the spec's 2-second period while a client
sends 4 concurrent requests, then one a second for a minute, each an eth_estimateGas of the BLAKE2F precompile at
the gas cap and one at 29,000,000 rounds without gas (/rpc rate limit lifted, gas cap and in-flight bounds kept),
against the minute before without them; target at least 0.9x.`,
  },
  institutional: {
    title: 'Institutional API: `npm run bench -- institutional`',
    before: `The institutional REST API over real TLS (X25519MLKEM768, keep-alive) on the in-process reference stack,
per-IP rate limit lifted. Defaults: 3,000 GET requests per run, 3 alternating bearer/ML-DSA runs (the median is
reported), 3,000 transfers from 32 accounts at 64 concurrent, \`SVC_BLOCK_TIME=0\` (a block as soon as
transactions arrive). Every ML-DSA request carries its own signature (replays are refused, D-076), signed
before the run so that the client's signing time is not counted. Besides latency, the figures give the
process's CPU time per request (every thread: server, load generator, libuv's pool, PGlite; not PostgreSQL or
Anvil, which are other processes).

Targets:

- **SVC-MLDSA authentication adds at most 1.3x the CPU of one OpenSSL ML-DSA-65 verification** over a
  remembered bearer key. Both are measured in the same run and process (scripts/bench/auth-cpu.ts: the
  product's Authenticator and credential store called 32 at a time, whole-process CPU including libuv's
  pool, against \`crypto.verify\` with an imported key). The verification is the work the scheme needs;
  everything above it is overhead.
- At concurrency 1, the SVC-MLDSA p50 at most the bearer p50 + 0.4 ms. Its bound (D-196): a bearer request
  carrying an extra header as long as the SVC-MLDSA Authorization value (10.5 KB) pays the header's transport
  alone, and one verification is measured in the same run; the target held against that bound is the
  SVC-MLDSA p50 at most the padded bearer p50 + 0.4 ms. The authentication's other steps (signature hex,
  the remembered registration lookup, the replay digest and memory) are timed alone as well.
- At least 200 transfers per second accepted, every one confirmed on Anvil, zero nonce gaps.

The earlier target, ML-DSA p50 at most 1.15x bearer at concurrency 32, is reported without a verdict: on
this machine the load generator, the server, the pool threads and the database share two cores, so the
verification's CPU is taken from the requests either way (see the history below).`,
    after: `### History

Measured 2026-11-21/22 UTC on the final code, six default runs back to back, alternating the database
(Node 26.10.0, OpenSSL 3.5.8, PostgreSQL 15.18 from Debian):

| run | database | bearer p50 / req/s | SVC-MLDSA p50 / req/s | ML-DSA / bearer | CPU µs/req process, bearer → ML-DSA | main thread | transfers accepted/s | confirmed/s | nonce gaps |
|---|---|---|---|---|---|---|---:|---:|---:|
| 00:05 | PGlite | 20.6 ms / 1,494 | 26.5 ms / 1,115 | 1.29x | 1,171 → 1,584 | 403 → 479 | **249** | 248 | 0 |
| 00:06 | PostgreSQL | 12.3 ms / 2,402 | 21.6 ms / 1,446 | 1.76x | 496 → 969 | 348 → 526 | **421** | 418 | 0 |
| 00:07 | PGlite | 16.5 ms / 1,768 | 27.9 ms / 1,102 | 1.69x | 954 → 1,631 | 334 → 523 | **214** | 213 | 0 |
| 00:08 | PostgreSQL | 14.9 ms / 2,055 | 22.1 ms / 1,412 | 1.48x | 613 → 979 | 444 → 568 | **340** | 338 | 0 |
| 00:09 | PGlite | 21.6 ms / 1,418 | 28.2 ms / 1,072 | 1.31x | 1,214 → 1,653 | 438 → 491 | **226** | 224 | 0 |
| 00:10 | PostgreSQL | 14.3 ms / 2,189 | 22.1 ms / 1,437 | 1.54x | 555 → 988 | 435 → 544 | **313** | 311 | 0 |

**Transfers: met on both databases** in every run (PGlite 214 to 249 per second, PostgreSQL 313 to 421),
every transfer confirmed on Anvil, no nonce gap. Six runs before the stuck-transaction repair below
(23:48 to 23:53) gave PGlite 262, 206 and 224, PostgreSQL 411 and 352; the sixth ended with one account's
last 37 transfers never mined, which is what that repair is for.

**The earlier target, ML-DSA p50 at most 1.15x bearer at concurrency 32, was missed** in every run (1.29x to 1.76x; shorter single-round runs on 2026-11-22
ranged from 0.71x to 1.72x). It cannot be met reliably on this machine, which is why the target is now the added CPU against one verification (above):

- An OpenSSL ML-DSA-65 verification costs 0.17 ms of CPU (\`crypto.verify\`, measured in isolation), 0.25
  ms when it runs on libuv's pool (the hand-over costs CPU too); the spec requires node:crypto
  (OpenSSL). The whole SVC-MLDSA authentication adds about 0.28 ms of CPU per request over a remembered
  bearer key (throwaway microbenchmark of the authenticator at 32 concurrent), and the table shows 0.36 to
  0.68 ms more process CPU per ML-DSA request.
- A bearer GET now costs 0.5 to 0.6 ms of process CPU on PostgreSQL (plus PostgreSQL's own), so 15 % of
  it is under 0.1 ms: less than the verification alone. Load generator, server, pool threads and database
  share two cores, so the verification's CPU is taken from the requests either way. The faster a bearer
  request gets, the larger the ratio: the changes up to aaab4ad (2026-11-22) made bearer GETs faster (PostgreSQL 1,800 req/s
  before, 2,055 to 2,402 now) and the ratio on PostgreSQL larger (1.31x before).
- On the main thread the verification is not the cost: it runs on the pool, concurrently with the key's
  lookup. ML-DSA adds 50 to 190 µs of main-thread CPU per request (header parsing, the hand-over, the
  replay digest). A machine with cores to spare for the pool would show mainly that difference; none was
  available to measure.

What changed from f86f76b (2026-11-21) to aaab4ad (2026-11-22) (at f86f76b: PGlite 176 transfers/s and 1.24x, PostgreSQL 280 and 1.31x):

- **PGlite on a worker thread** (\`src/storage/pglite-thread.ts\`, \`pglite-worker.ts\`). PGlite runs
  PostgreSQL as WebAssembly on the thread that calls it; it was 55 % of the server thread's busy time per
  transfer (\`node --cpu-prof\`) while the other core sat a third idle. It now has a thread of its own
  behind drizzle-orm's \`query\`/\`transaction\` interface, keeping PGlite's transaction mutex and
  PostgreSQL's error fields. On its own this made transfers slower (126/s): every round trip of a
  transaction now waited for the busy main thread, so the transaction was reshaped next.
- **One guarded statement per transfer** (\`src/ledger/transfers/guarded-insert.ts\`, D-026). The account
  and both D-026 sums are read without a lock; the engine validates and signs with the next nonce; one
  statement then allocates that nonce only if it is still the next one and every D-026 condition still
  holds, inserts the record from the allocation, and writes the payment, its event and the event's
  deliveries. No explicit transaction, no lock held across a round trip. Both statements are built once
  with placeholders and prepared once per connection: building them per request cost the server thread
  about 0.65 ms per transfer (profile: 1.96 s of drizzle-orm query building for 3,000 transfers).
- **Request guards build their zod schemas once**: \`.strict()\` and \`.extend()\` per request cost about
  0.1 ms each (throwaway microbenchmark: 94 µs against 0.8 µs).
- **The node is read before the account's turn**; the per-account mutex covers only the store and the
  broadcast.
- **Stuck transactions** (\`src/node/stuck-transactions.ts\`). Anvil can leave a transaction queued for
  ever when the block mining its predecessor commits between the transaction's validation and its
  admission to the pool (once in about twenty runs here: one account's nonce 56 and the 36 after it).
  After each block the producer asks \`txpool_status\`; a sender whose next-in-line transaction is queued
  has its transactions taken out and sent again in nonce order (same bytes, same hashes). Keeping
  admission and mining apart instead cut the rate to 164 and 169 transfers/s.
- Tried and dropped: coalescing the transfers' node calls into one JSON-RPC batch per event-loop turn
  (208 and 192 against 213 and 215 transfers/s: no measurable gain), and synchronous verification
  (ratios 1.41x, 1.59x, 1.32x against 1.13x, 1.64x, 1.56x with the pool, alternating runs on PostgreSQL:
  no measurable difference, and more main-thread CPU per ML-DSA request, 708 to 936 µs against 659 to 692).

Earlier changes: Drizzle's per-query PGlite parsers installed once; the node read at one sealed block
(D-026); no write after a successful broadcast (D-078); the confirmer settles a block's transfers and
their payments in one transaction; named statements; credentials remembered for 1 s (D-129); the
SVC-MLDSA header parsed by position.`,
  },
  proxy: {
    title: 'The validating proxy: `npm run bench -- proxy`',
    before: `What \`svckit proxy\` adds to an exchange (D-249, D-250, D-263). The reference stack runs in the benchmark's
process (TLS with X25519MLKEM768, PGlite, Anvil); \`svckit proxy\` runs as its own process in front of it, with
its own development CA, and judges every answer; the load comes from the benchmark's process over keep-alive
HTTPS. Three exchanges: GET /api/stats (from the stack's database), POST /rpc eth_blockNumber (from its memory)
and POST /rpc eth_getBalance (relayed to the node). Each is sent in alternating runs (the median of three is
kept) directly, through the proxy, through the proxy with \`--no-violations-header\` (which answers first and
judges after), and through a bare pass-through forwarder (scripts/bench/bare-forwarder.mjs: the same second TLS
hop, judging nothing). Targets: at concurrency 1, proxied p50 at most 1.3x direct and at most 1 ms added (D-263);
at concurrency 32, proxied throughput at least 0.7x direct.`,
    after: `The 1 ms bound holds for every exchange. The 1.3x ratio does not, and it is mostly the second hop:
the bare forwarder, which only adds the hop, already stands at 1.2x to 2.0x because the stack answers these
exchanges in 0.1 to 0.7 ms. The rest of the gap is the proxy's own work before it answers: parsing, judging
against the contract and counting the violations for the \`X-Svckit-Violations\` header. Without that header
(and without \`--strict\`), the proxy answers first and judges after, which brings the p50 close to the bare
forwarder's.
At concurrency 32 the proxy, the stack and the load share the machine's two cores, and the proxy does about as
much TLS work per exchange as the stack. Throughput therefore depends on how busy the machine is. On a quiet
machine (load average below 1) it stays near 0.7x to 0.9x of direct, within 0.1x of the bare forwarder. An
earlier run beside other work (load average 9.4) measured 0.33x to 0.55x. A CPU profile of the proxy, the stack
and the load in one process (eth_blockNumber at concurrency 32) spends about a fifth of its time in TLS writes
and about 3% in the proxy's own functions (matching, judging, the tallies; ajv validators are compiled once per
schema).`,
  },
  growth: {
    title: 'Costs as data grows: `npm run bench -- growth`',
    before: `PostgreSQL (a throw-away cluster the benchmark starts, or the server of \`DATABASE_URL\`) gets one
database per size, seeded with bulk SQL (\`INSERT ... SELECT generate_series\`) to 10⁴, 10⁵ and 10⁶ transfers,
payments, payment events and webhook deliveries. The benchmark times the product's own query code (the
functions the server calls, not copies): an account's statement page, the transfer list of one account and
of every account, a transfer by reference, the webhook dispatcher's claim and the transfer confirmer's pass
over the pending records (against a node answering that none is mined, so the database is what is timed).
The probed account (200 transfers sent, 50 received, 20 pending) and the 100 due deliveries are the same at
every size; only the rest of the tables grows. The sizes take turns run by run, so the machine's load falls
on every size alike. Target: p50 at 10⁶ rows at most 1.5x p50 at 10⁴, for each query but the list of every
account, whose \`total\` counts the whole table (D-179). The query plans at 10⁶ follow, as auto_explain
logged them (\`EXPLAIN (ANALYZE, BUFFERS)\`); each page is two statements, the count and the page.`,
  },
};
