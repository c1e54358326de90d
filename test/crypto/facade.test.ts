// The crypto façade (src/crypto): OpenSSL by default, noble where OpenSSL lacks the interface, guards
// with stable error codes, and agreement with an independent implementation (@noble/*).
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 as nobleSha3 } from '@noble/hashes/sha3.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { describe, expect, it } from 'vitest';
import {
  aes256Gcm,
  CryptoError,
  hkdfSha256,
  hmacSha256,
  mlDsa65,
  mlKem768,
  sha3_256,
  verifyHmacSha256,
} from '../../src/crypto/index.ts';
import { acvpFile } from './vector-files.ts';

const text = (s: string) => new TextEncoder().encode(s);
const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof CryptoError ? error.code : `not a CryptoError: ${String(error)}`;
  }
  return 'no error';
};

describe('mlDsa65', () => {
  const { publicKey, secretKey } = mlDsa65.keygen();
  const message = text('1700000000000:GET:/api/v1/accounts/acc_01');

  it('makes FIPS 204 sized keys and hedged signatures that noble verifies', () => {
    expect([publicKey.length, secretKey.length]).toEqual([1952, 32]);
    const a = mlDsa65.sign(secretKey, message);
    const b = mlDsa65.sign(secretKey, message);
    expect(a.length).toBe(3309);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false); // hedged: fresh rnd each time (D-044)
    expect(ml_dsa65.verify(a, message, publicKey)).toBe(true);
    expect(mlDsa65.verify(publicKey, message, a)).toBe(true);
  });

  it('binds the context: a signature under one context fails under another or the empty one', () => {
    const context = text('svckit');
    const signature = mlDsa65.sign(secretKey, message, { context });
    expect(mlDsa65.verify(publicKey, message, signature, { context })).toBe(true);
    expect(mlDsa65.verify(publicKey, message, signature)).toBe(false);
    expect(mlDsa65.verify(publicKey, message, signature, { context: text('svckiT') })).toBe(false);
  });

  it('verifies on the thread pool with the same answers as the synchronous verify', async () => {
    const context = text('svckit');
    const signature = mlDsa65.sign(secretKey, message, { context });
    const tampered = Uint8Array.from(signature, (b, i) => (i === 100 ? b ^ 1 : b));
    const cases: [Uint8Array, Uint8Array, Uint8Array, { context?: Uint8Array }][] = [
      [publicKey, message, signature, { context }],
      [publicKey, message, signature, {}],
      [publicKey, message, tampered, { context }],
      [publicKey, text('other'), signature, { context }],
      [publicKey.subarray(1), message, signature, { context }], // malformed key: false, not a throw
      [publicKey, message, signature.subarray(1), { context }], // malformed signature
    ];
    const answers = await Promise.all(cases.map(([pk, m, sig, o]) => mlDsa65.verifyAsync(pk, m, sig, o)));
    expect(answers).toEqual(cases.map(([pk, m, sig, o]) => mlDsa65.verify(pk, m, sig, o)));
    expect(answers).toEqual([true, false, false, false, false, false]);
  });

  it('signs deterministically or with a given rnd via noble, matching noble on the expanded key', () => {
    const expanded = mlDsa65.expandSecretKey(secretKey);
    expect(expanded.length).toBe(4032);
    const det = mlDsa65.sign(secretKey, message, { deterministic: true });
    expect(Buffer.from(det)).toEqual(Buffer.from(ml_dsa65.sign(message, expanded, { extraEntropy: false })));
    const rnd = new Uint8Array(32).fill(7);
    expect(Buffer.from(mlDsa65.sign(expanded, message, { rnd }))).toEqual(
      Buffer.from(ml_dsa65.sign(message, expanded, { extraEntropy: rnd })),
    );
    expect(mlDsa65.verify(publicKey, message, det)).toBe(true);
  });

  it('offers the internal interface with an external mu, and HashML-DSA with a refusal for weak pre-hashes', () => {
    const mu = new Uint8Array(64).fill(3);
    const signature = mlDsa65.signInternal(secretKey, mu, { externalMu: true, deterministic: true });
    expect(mlDsa65.verifyInternal(publicKey, mu, signature, { externalMu: true })).toBe(true);
    expect(mlDsa65.verifyInternal(publicKey, mu, signature)).toBe(false);
    const pre = mlDsa65.signPrehash(secretKey, message, 'SHA2-512');
    expect(mlDsa65.verifyPrehash(publicKey, message, pre, 'SHA2-512')).toBe(true);
    expect(mlDsa65.verify(publicKey, message, pre)).toBe(false);
    expect(codeOf(() => mlDsa65.signPrehash(secretKey, message, 'SHA2-256'))).toBe('REFUSED');
  });

  it('derives NIST keyGen results from the seed (FIPS 204 ML-DSA.KeyGen_internal)', () => {
    const prompt = acvpFile('ML-DSA-keyGen-FIPS204', 'prompt').testGroups.find((g) => g.parameterSet === 'ML-DSA-65')!;
    const expected = acvpFile('ML-DSA-keyGen-FIPS204', 'expectedResults').testGroups.find(
      (g) => g.tgId === prompt.tgId,
    )!;
    const pair = mlDsa65.keygenFromSeed(Buffer.from(prompt.tests[0]!.seed!, 'hex'));
    expect(Buffer.from(pair.publicKey).toString('hex').toUpperCase()).toBe(expected.tests[0]!.pk);
    expect(Buffer.from(mlDsa65.publicKeyOf(pair.secretKey))).toEqual(Buffer.from(pair.publicKey));
  });

  it('guards its inputs: wrong lengths and long contexts throw coded errors; malformed verification input is false', () => {
    expect(codeOf(() => mlDsa65.sign(new Uint8Array(31), message))).toBe('BAD_LENGTH');
    expect(codeOf(() => mlDsa65.sign(secretKey, message, { context: new Uint8Array(256) }))).toBe('BAD_INPUT');
    expect(codeOf(() => mlDsa65.sign(secretKey, message, { rnd: new Uint8Array(32), deterministic: true }))).toBe(
      'BAD_INPUT',
    );
    expect(codeOf(() => mlDsa65.sign(secretKey, 'text' as unknown as Uint8Array))).toBe('BAD_INPUT');
    const signature = mlDsa65.sign(secretKey, message);
    expect(mlDsa65.verify(publicKey.subarray(1), message, signature)).toBe(false);
    expect(mlDsa65.verify(publicKey, message, signature.subarray(1))).toBe(false);
    expect(mlDsa65.verify(publicKey, message, signature, { context: new Uint8Array(256) })).toBe(false);
  });
});

describe('mlKem768', () => {
  it('encapsulates and decapsulates with the seed or the expanded key, agreeing with noble', () => {
    const { publicKey, secretKey } = mlKem768.keygen();
    expect([publicKey.length, secretKey.length]).toEqual([1184, 64]);
    const { ciphertext, sharedSecret } = mlKem768.encapsulate(publicKey);
    expect(ciphertext.length).toBe(1088);
    expect(Buffer.from(mlKem768.decapsulate(secretKey, ciphertext))).toEqual(Buffer.from(sharedSecret));
    const expanded = mlKem768.expandSecretKey(secretKey);
    expect(Buffer.from(ml_kem768.decapsulate(ciphertext, expanded))).toEqual(Buffer.from(sharedSecret));
    expect(Buffer.from(mlKem768.keygenFromSeed(secretKey).publicKey)).toEqual(Buffer.from(publicKey));
    expect(Buffer.from(mlKem768.publicKeyOf(expanded))).toEqual(Buffer.from(publicKey));
  });

  it('implicitly rejects a tampered ciphertext with the same key as noble (FIPS 203 Algorithm 18)', () => {
    const { publicKey, secretKey } = mlKem768.keygen();
    const { ciphertext, sharedSecret } = mlKem768.encapsulate(publicKey);
    const tampered = new Uint8Array(ciphertext);
    tampered[0] = (tampered[0] as number) ^ 0x80;
    const rejected = mlKem768.decapsulate(secretKey, tampered);
    expect(Buffer.from(rejected).equals(Buffer.from(sharedSecret))).toBe(false);
    expect(Buffer.from(rejected)).toEqual(
      Buffer.from(ml_kem768.decapsulate(tampered, mlKem768.expandSecretKey(secretKey))),
    );
  });

  it('encapsulates deterministically with a given m, and refuses bad keys and lengths', () => {
    const { publicKey } = mlKem768.keygen();
    const m = new Uint8Array(32).fill(9);
    const a = mlKem768.encapsulateDeterministic(publicKey, m);
    expect(Buffer.from(a.ciphertext)).toEqual(Buffer.from(mlKem768.encapsulateDeterministic(publicKey, m).ciphertext));
    const badKey = new Uint8Array(publicKey);
    badKey[0] = 0xff;
    badKey[1] = (badKey[1] as number) | 0x0f; // a coefficient of 4095 >= q fails the FIPS 203 §7.2 check
    expect(codeOf(() => mlKem768.encapsulate(badKey))).toBe('BAD_KEY');
    expect(codeOf(() => mlKem768.decapsulate(new Uint8Array(63), new Uint8Array(1088)))).toBe('BAD_LENGTH');
    expect(codeOf(() => mlKem768.decapsulate(new Uint8Array(64), new Uint8Array(1087)))).toBe('BAD_LENGTH');
  });
});

describe('symmetric primitives', () => {
  it('AES-256-GCM round-trips, appends a 16-byte tag, and fails closed on tampering or the wrong AAD', () => {
    const key = new Uint8Array(32).fill(1);
    const nonce = new Uint8Array(12).fill(2);
    const sealed = aes256Gcm.encrypt(key, nonce, text('memo'), text('aad'));
    expect(sealed.length).toBe(4 + 16);
    expect(new TextDecoder().decode(aes256Gcm.decrypt(key, nonce, sealed, text('aad')))).toBe('memo');
    expect(codeOf(() => aes256Gcm.decrypt(key, nonce, sealed, text('other')))).toBe('DECRYPT_FAILED');
    const tampered = new Uint8Array(sealed);
    tampered[0] = (tampered[0] as number) ^ 1;
    expect(codeOf(() => aes256Gcm.decrypt(key, nonce, tampered, text('aad')))).toBe('DECRYPT_FAILED');
    expect(codeOf(() => aes256Gcm.encrypt(new Uint8Array(16), nonce, text('x')))).toBe('BAD_LENGTH');
    expect(codeOf(() => aes256Gcm.encrypt(key, new Uint8Array(16), text('x')))).toBe('BAD_LENGTH');
  });

  it('HMAC-SHA256, SHA3-256 and HKDF-SHA256 agree with @noble/hashes', async () => {
    const key = text('webhook secret');
    const body = text('{"event":"payment.settled"}');
    expect(Buffer.from(hmacSha256(key, body))).toEqual(Buffer.from(hmac(sha256, key, body)));
    expect(verifyHmacSha256(key, body, hmacSha256(key, body))).toBe(true);
    expect(verifyHmacSha256(key, body, hmacSha256(key, body).subarray(0, 16))).toBe(false);
    expect(Buffer.from(sha3_256(body))).toEqual(Buffer.from(nobleSha3(body)));
    const { hkdf } = await import('@noble/hashes/hkdf.js');
    expect(Buffer.from(hkdfSha256(key, text('salt'), text('info'), 42))).toEqual(
      Buffer.from(hkdf(sha256, key, text('salt'), text('info'), 42)),
    );
    expect(codeOf(() => hkdfSha256(key, key, key, 0))).toBe('BAD_INPUT');
  });
});
