// Unit tests of SVC-MLDSA verification (spec "Authentication", A) on the injectable clock: the ±30 s window
// to the millisecond, both path forms (D-029), replay refusal for the window and after it (D-076), and the
// integrator helper's header over the request target as sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mldsaAuthorization, requestTarget, signRequestsWithMldsa } from '../../src/client/mldsa-signer.ts';
import { ManualClock } from '../../src/clock.ts';
import { fromHex, mlDsa65, toHex, type MlDsa65KeyPair } from '../../src/crypto/index.ts';
import { CredentialStore } from '../../src/ledger/credentials.ts';
import { Authenticator, SIGNATURE_SKEW_MS } from '../../src/server/auth/authenticate.ts';
import { statusOf } from '../../src/server/http/error-codes.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';

const clock = new ManualClock();
let database: OpenDatabase;
let auth: Authenticator;
let keys: MlDsa65KeyPair;
const path = '/wallet/api/v1/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA/statement?page=2&limit=5';

beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  const store = new CredentialStore(database.db, clock);
  keys = mlDsa65.keygen();
  await store.registerMldsaKey(keys.publicKey, { name: 'unit', permissions: ['accounts:read'], accountIds: null });
  auth = new Authenticator(store, clock);
});
afterAll(async () => {
  await database?.close();
});

/** The status and code the authenticator answers for a header (200 when accepted). */
async function outcome(authorization: string, target = path, method = 'GET'): Promise<string> {
  try {
    await auth.authenticate({ method, target, authorization });
    return '200';
  } catch (error) {
    if (error instanceof RestError) return `${statusOf(error.code)} ${error.code}`;
    throw error;
  }
}

describe('SVC-MLDSA verification', () => {
  it('accepts timestamps up to 30 000 ms either side of server time and refuses 30 001', async () => {
    expect(SIGNATURE_SKEW_MS).toBe(30_000);
    const now = clock.now();
    expect(await outcome(mldsaAuthorization(keys, 'GET', path, now + 30_000))).toBe('200');
    expect(await outcome(mldsaAuthorization(keys, 'GET', path, now - 30_000))).toBe('200');
    expect(await outcome(mldsaAuthorization(keys, 'GET', path, now + 30_001))).toBe('401 STALE_TIMESTAMP');
    expect(await outcome(mldsaAuthorization(keys, 'GET', path, now - 30_001))).toBe('401 STALE_TIMESTAMP');
  });

  it('accepts the target as sent and without the leading /wallet (D-029), nothing else', async () => {
    const now = clock.now();
    expect(await outcome(mldsaAuthorization(keys, 'GET', path, now))).toBe('200');
    expect(await outcome(mldsaAuthorization(keys, 'GET', path.replace('/wallet', ''), now))).toBe('200');
    expect(await outcome(mldsaAuthorization(keys, 'GET', path.split('?')[0]!, now))).toBe('401 INVALID_SIGNATURE');
    expect(await outcome(mldsaAuthorization(keys, 'get', path, now), path, 'POST')).toBe('401 INVALID_SIGNATURE');
    expect(await outcome(mldsaAuthorization(keys, 'GET', `https://svc.example${path}`, now))).toBe(
      '401 INVALID_SIGNATURE',
    );
  });

  it('accepts a header once and refuses it again for the whole window, and stale after it (D-076)', async () => {
    const header = mldsaAuthorization(keys, 'GET', path, clock.now());
    expect(await outcome(header)).toBe('200');
    expect(await outcome(header)).toBe('401 REPLAYED_SIGNATURE');
    clock.advance(SIGNATURE_SKEW_MS);
    expect(await outcome(header)).toBe('401 REPLAYED_SIGNATURE');
    clock.advance(1);
    expect(await outcome(header)).toBe('401 STALE_TIMESTAMP');
  });

  it('takes the key and signature hex in either case (D-044)', async () => {
    const header = mldsaAuthorization(keys, 'GET', path, clock.now());
    const [scheme, value] = header.split(' ') as [string, string];
    expect(await outcome(`${scheme} ${value.toUpperCase()}`)).toBe('200');
  });
});

describe('the integrator helper', () => {
  it('refuses every malformed SVC-MLDSA header with 401 before verifying anything', async () => {
    const good = mldsaAuthorization(keys, 'GET', path, clock.now());
    const [scheme, rest] = [good.slice(0, 10), good.slice(10)];
    const [pk, ts, sig] = rest.split('.') as [string, string, string];
    const malformed = [
      `${scheme}${pk.slice(0, -1)}g.${ts}.${sig}`, // a non-hex digit at the end of the key
      `${scheme}z${pk.slice(1)}.${ts}.${sig}`, // and at its start
      `${scheme}${pk}.${ts}.${sig.slice(0, 3000)}x${sig.slice(3001)}`, // inside the signature
      `${scheme}${pk.slice(2)}.${ts}.${sig}`, // a key one byte short
      `${scheme}${pk}00.${ts}.${sig}`, // one byte long
      `${scheme}${pk}.${ts}.${sig}00`, // a signature one byte long
      `${scheme}${pk}.${ts}.${sig.slice(2)}`, // one byte short
      `${scheme}${pk}.${ts}x.${sig}`, // a timestamp that is not digits
      `${scheme}${pk}..${sig}`, // no timestamp
      `${scheme}${pk}.12345678901234567.${sig}`, // 17 digits
      `${scheme}${pk}.${ts}.${sig.slice(0, 10)}.${sig.slice(10)}`, // a third dot
      `${scheme}${pk}`,
      scheme,
    ];
    for (const header of malformed) expect(await outcome(header), header.slice(0, 40)).toBe('401 UNAUTHENTICATED');
    expect(await outcome(good)).toBe('200');
  });

  it('signs <timestamp_ms>:<METHOD>:<path and query> with the key pair, verifiable by anyone holding the public key', () => {
    const header = mldsaAuthorization(keys, 'post', '/wallet/api/v1/transfers', 1_795_253_400_000);
    const match = /^SVC-MLDSA ([0-9a-f]{3904})\.(\d+)\.([0-9a-f]{6618})$/.exec(header);
    expect(match?.[1]).toBe(toHex(keys.publicKey));
    expect(match?.[2]).toBe('1795253400000');
    const message = new TextEncoder().encode('1795253400000:POST:/wallet/api/v1/transfers');
    expect(mlDsa65.verify(keys.publicKey, message, fromHex(match![3]!))).toBe(true);
    // D-076: hedged signing, so every request carries a fresh signature.
    expect(mldsaAuthorization(keys, 'POST', '/wallet/api/v1/transfers', 1_795_253_400_000)).not.toBe(header);
    expect(requestTarget('https://h.example:8443/wallet/api/v1/transfers?page=2&limit=5')).toBe(
      '/wallet/api/v1/transfers?page=2&limit=5',
    );
  });

  it('adds the header to every request of a generated client, over the URL it sends', async () => {
    const fns: ((request: Request) => Request | Promise<Request>)[] = [];
    const client = {
      interceptors: { request: { use: (fn: (request: Request) => Request | Promise<Request>) => fns.push(fn) } },
    };
    signRequestsWithMldsa(client, keys, () => clock.now());
    const request = await fns[0]!(new Request(`https://h.example:8443${path}`));
    expect(await outcome(request.headers.get('authorization')!)).toBe('200');
  });
});
