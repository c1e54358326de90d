// Unit tests of SVC-MLDSA verification (spec "Authentication", A) on the injectable clock: the ±30 s window
// to the millisecond, both path forms (D-029), replay refusal for the window and after it (D-076), and the
// integrator helper's header over the request target as sent, and the optional Content-Digest binding of D-225.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentDigest,
  mldsaAuthorization,
  requestTarget,
  signRequestsWithMldsa,
} from '../../src/client/mldsa-signer.ts';
import { ManualClock } from '../../src/clock.ts';
import { fromHex, mlDsa65, toHex, type MlDsa65KeyPair } from '../../src/crypto/index.ts';
import { CredentialStore } from '../../src/ledger/credentials.ts';
import { Authenticator, SIGNATURE_SKEW_MS } from '../../src/server/auth/authenticate.ts';
import { BodyDigest, parseContentDigest } from '../../src/server/auth/content-digest.ts';
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
async function outcome(
  authorization: string,
  target = path,
  method = 'GET',
  bodyParts: { contentDigest?: string; body?: BodyDigest } = {},
): Promise<string> {
  try {
    await auth.authenticate({ method, target, authorization, ...bodyParts });
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

/** The body's digests as the server takes them: hashed while a reader (the parser) consumes the stream. */
async function parsed(raw: string, digestHeader: string): Promise<BodyDigest> {
  const wanted = parseContentDigest(digestHeader);
  const body = new BodyDigest('digests' in wanted ? wanted.digests.keys() : []);
  for await (const _chunk of body.tap(Readable.from([Buffer.from(raw)])));
  return body;
}

describe('the Content-Digest binding (D-225)', () => {
  const transfers = '/wallet/api/v1/transfers';
  const original = JSON.stringify({ fromAccountId: 'acc_1', to: '0x01', amount: '1.00' });
  const other = JSON.stringify({ fromAccountId: 'acc_1', to: '0x02', amount: '99.00' });
  const post = async (authorization: string, raw: string, digestHeader: string | undefined) =>
    outcome(authorization, transfers, 'POST', {
      ...(digestHeader !== undefined ? { contentDigest: digestHeader, body: await parsed(raw, digestHeader) } : {}),
    });

  it('signs "<ts>:<METHOD>:<path>\\n<Content-Digest>" and marks the header; the server accepts it with its body', async () => {
    const digest = contentDigest(original);
    expect(digest).toBe(`sha-256=:${createHash('sha256').update(original).digest('base64')}:`);
    const header = mldsaAuthorization(keys, 'POST', transfers, 1_795_253_400_000, digest);
    const match = /^SVC-MLDSA [0-9a-f]{3904}\.1795253400000\.([0-9a-f]{6618})\.content-digest$/.exec(header);
    const message = new TextEncoder().encode(`1795253400000:POST:${transfers}\n${digest}`);
    expect(mlDsa65.verify(keys.publicKey, message, fromHex(match![1]!))).toBe(true);
    expect(await post(mldsaAuthorization(keys, 'POST', transfers, clock.now(), digest), original, digest)).toBe('200');
  });

  it('refuses a captured bound header with another body, however the Content-Digest is changed', async () => {
    const digest = contentDigest(original);
    const captured = mldsaAuthorization(keys, 'POST', transfers, clock.now(), digest);
    // The body swapped, the digest kept: the body does not match it.
    expect(await post(captured, other, digest)).toBe('401 INVALID_SIGNATURE');
    // The digest recomputed for the new body: the signature covers the old one.
    expect(await post(captured, other, contentDigest(other))).toBe('401 INVALID_SIGNATURE');
    // The digest dropped: the mark says the signature covers it.
    expect(await post(captured, other, undefined)).toBe('401 UNAUTHENTICATED');
    // The mark dropped: the signature was not made over the specified string.
    expect(await post(captured.slice(0, -'.content-digest'.length), other, undefined)).toBe('401 INVALID_SIGNATURE');
    // None of these used the header up: the client's own request still goes through, once.
    expect(await post(captured, original, digest)).toBe('200');
    expect(await post(captured, original, digest)).toBe('401 REPLAYED_SIGNATURE');
  });

  it('leaves the specified scheme as it is: a captured plain header is accepted once with another body', async () => {
    // The documented limit (D-225): the spec's string names no body; the replay memory allows one use.
    const captured = mldsaAuthorization(keys, 'POST', transfers, clock.now());
    expect(await post(captured, other, undefined)).toBe('200');
    expect(await post(captured, original, undefined)).toBe('401 REPLAYED_SIGNATURE');
    // A plain signature does not become a bound one by adding the mark.
    const plain = mldsaAuthorization(keys, 'POST', transfers, clock.now());
    expect(await post(`${plain}.content-digest`, original, contentDigest(original))).toBe('401 INVALID_SIGNATURE');
  });

  it('reads RFC 9530 members: sha-512 too, unknown algorithms ignored; malformed or unusable values are 401', async () => {
    const sha512 = `sha-512=:${createHash('sha512').update(original).digest('base64')}:`;
    const both = `${contentDigest(original)}, ${sha512}, unixsum=:AAAA:`;
    for (const digest of [sha512, both])
      expect(await post(mldsaAuthorization(keys, 'POST', transfers, clock.now(), digest), original, digest)).toBe(
        '200',
      );
    const wrong512 = `${contentDigest(original)}, sha-512=:${createHash('sha512').update(other).digest('base64')}:`;
    expect(await post(mldsaAuthorization(keys, 'POST', transfers, clock.now(), wrong512), original, wrong512)).toBe(
      '401 INVALID_SIGNATURE',
    );
    for (const digest of [
      'md5=:1B2M2Y8AsgTpgAmY7PhCfg==:', // no algorithm the server checks
      'sha-256=abc', // not a byte sequence
      'sha-256=:AAAA:', // 3 bytes, not 32
      `${contentDigest(original)}, ${contentDigest(original)}`, // twice
      `${contentDigest(original)};x=1`,
      `sha-256=:${'A'.repeat(600)}:`,
    ])
      expect(await post(mldsaAuthorization(keys, 'POST', transfers, clock.now(), digest), original, digest)).toBe(
        '401 UNAUTHENTICATED',
      );
  });

  it('the helper sends Content-Digest and the bound header when asked, for a request without a body too', async () => {
    const fns: ((request: Request) => Request | Promise<Request>)[] = [];
    const client = {
      interceptors: { request: { use: (fn: (request: Request) => Request | Promise<Request>) => fns.push(fn) } },
    };
    signRequestsWithMldsa(client, keys, () => clock.now(), { contentDigest: true });
    const sent = await fns[0]!(new Request(`https://h.example:8443${transfers}`, { method: 'POST', body: original }));
    const digest = sent.headers.get('content-digest')!;
    expect(digest).toBe(contentDigest(original));
    expect(await sent.text()).toBe(original);
    expect(await post(sent.headers.get('authorization')!, original, digest)).toBe('200');
    const read = await fns[0]!(new Request(`https://h.example:8443${path}`));
    expect(read.headers.get('content-digest')).toBe(contentDigest(''));
    expect(
      await outcome(read.headers.get('authorization')!, path, 'GET', {
        contentDigest: read.headers.get('content-digest')!,
      }),
    ).toBe('200');
  });
});
