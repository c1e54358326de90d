/**
 * The CPU an SVC-MLDSA authentication adds over a remembered bearer key, against the CPU of one OpenSSL
 * ML-DSA-65 verification measured in the same process and run (the physical limit: the verification is the
 * work the scheme needs, everything above it is overhead). Used by the institutional benchmark.
 *
 * The product's own Authenticator and credential store are called directly (no HTTP), 32 at a time like the
 * HTTP runs; CPU is the whole process's (`process.cpuUsage`: every thread, libuv's pool included).
 */
import { createHash, verify } from 'node:crypto';
import { mldsaAuthorization } from '../../src/client/mldsa-signer.ts';
import type { Clock } from '../../src/clock.ts';
import type { MlDsa65KeyPair } from '../../src/crypto/index.ts';
import { importMlDsa65PublicKey } from '../../src/crypto/backends/openssl-ml-dsa.ts';
import type { CredentialStore } from '../../src/ledger/credentials.ts';
import { Authenticator } from '../../src/server/auth/authenticate.ts';
import { LocalReplayMemory } from '../../src/server/auth/replay.ts';

/**
 * CPU microseconds per call: bearer, SVC-MLDSA, their difference, and one bare verification; then the other
 * steps of an SVC-MLDSA authentication, each timed alone (D-196): `decodeUs` the signature's hex and the
 * signed message's bytes, `lookupUs` the registration lookup (remembered for CREDENTIAL_CACHE_MS, D-129; it
 * hashes the key), `replayUs` the signature's digest and the replay memory (D-076).
 */
export type AuthCpu = {
  bearerUs: number;
  mldsaUs: number;
  extraUs: number;
  verifyUs: number;
  ratio: number;
  decodeUs: number;
  lookupUs: number;
  replayUs: number;
};

const CONCURRENCY = 32;

/** Process CPU time (µs) used by `run`, divided by `n`. */
async function cpuPer(n: number, run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/** Calls `call(i)` for i in 0..n-1, `CONCURRENCY` at a time. */
async function concurrently(n: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await call(next++);
    }),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Measures `rounds` alternating rounds of `n` calls each and reports the medians. `target` is the request
 * target the signatures cover (a real route of the API, as the HTTP runs use).
 */
export async function measureAuthCpu(
  credentials: CredentialStore,
  clock: Clock,
  token: string,
  keys: MlDsa65KeyPair,
  target: string,
  n = 2000,
  rounds = 3,
  authenticator: Pick<Authenticator, 'authenticate'> = new Authenticator(credentials, clock),
): Promise<AuthCpu> {
  const bearer = { method: 'GET', target, authorization: `Bearer ${token}` };
  const key = importMlDsa65PublicKey(keys.publicKey);
  const results = {
    bearer: [] as number[],
    mldsa: [] as number[],
    verify: [] as number[],
    decode: [] as number[],
    lookup: [] as number[],
    replay: [] as number[],
  };
  // Warm-up: JIT, the credential memory (D-129), the parsed-key cache.
  const signedHeaders = (count: number) =>
    Array.from({ length: count }, () => mldsaAuthorization(keys, 'GET', target, clock.now()));
  const warm = signedHeaders(200);
  await concurrently(200, () => authenticator.authenticate(bearer));
  await concurrently(200, (i) => authenticator.authenticate({ method: 'GET', target, authorization: warm[i] }));
  for (let round = 0; round < rounds; round++) {
    // Every signature is fresh (D-076 refuses replays); signed before the timed part.
    const headers = signedHeaders(n);
    results.bearer.push(await cpuPer(n, () => concurrently(n, () => authenticator.authenticate(bearer))));
    results.mldsa.push(
      await cpuPer(n, () =>
        concurrently(n, (i) => authenticator.authenticate({ method: 'GET', target, authorization: headers[i] })),
      ),
    );
    // The same n signatures over their messages, decoded before the timed part: the bare verifications.
    const signed = headers.map((h) => {
      const [, timestamp, signatureHex] = h.split('.') as [string, string, string];
      return { message: Buffer.from(`${timestamp}:GET:${target}`), signature: Buffer.from(signatureHex, 'hex') };
    });
    results.verify.push(
      await cpuPer(n, async () => {
        for (const { message, signature } of signed)
          if (!verify(null, message, key, signature)) throw new Error('verify failed');
      }),
    );
    // The other steps alone, over the same n headers.
    results.decode.push(
      await cpuPer(n, async () => {
        for (const h of headers) {
          const [, timestamp, signatureHex] = h.split('.') as [string, string, string];
          if (Buffer.from(signatureHex, 'hex').length + Buffer.from(`${timestamp}:GET:${target}`).length === 0)
            throw new Error('empty');
        }
      }),
    );
    results.lookup.push(
      await cpuPer(n, async () => {
        for (let i = 0; i < n; i++)
          if (!(await credentials.findMldsaKey(keys.publicKey))) throw new Error('key not registered');
      }),
    );
    const replays = new LocalReplayMemory();
    results.replay.push(
      await cpuPer(n, async () => {
        for (const { signature } of signed)
          if (!(await replays.firstUse(createHash('sha256').update(signature).digest('base64'), clock.now())))
            throw new Error('replayed');
      }),
    );
  }
  const [bearerUs, mldsaUs, verifyUs] = [median(results.bearer), median(results.mldsa), median(results.verify)];
  const extraUs = mldsaUs - bearerUs;
  return {
    bearerUs,
    mldsaUs,
    extraUs,
    verifyUs,
    ratio: extraUs / verifyUs,
    decodeUs: median(results.decode),
    lookupUs: median(results.lookup),
    replayUs: median(results.replay),
  };
}
