// The memo envelope has exactly the byte layout of D-032; it is opened here by an independent reading
// of that layout (noble ML-KEM, node:crypto HKDF and AES-GCM) as well as by the façade.
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { describe, expect, it } from 'vitest';
import { type CryptoError, memoEnvelope, mlKem768 } from '../../src/crypto/index.ts';

const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const addressBytes = Buffer.from(address.slice(2), 'hex');
const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as CryptoError).code;
  }
  return 'no error';
};

describe('memo envelope (D-032)', () => {
  const { publicKey, secretKey } = mlKem768.keygen();
  const memo = 'Invoice 2026-11 — 1,234.56 units';
  const envelope = memoEnvelope.seal(publicKey, memo, address);

  it('is "SVM" || 0x01 || kemCiphertext (1,088) || nonce (12) || ciphertext || tag (16)', () => {
    const plaintext = Buffer.from(memo, 'utf8');
    expect(envelope.length).toBe(4 + 1088 + 12 + plaintext.length + 16);
    expect([...envelope.subarray(0, 4)]).toEqual([0x53, 0x56, 0x4d, 0x01]);
    // Independent opening: ML-KEM decapsulation by noble, then HKDF-SHA256(ikm = K, salt = kemCiphertext,
    // info = "svckit/memo/v1" || address) and AES-256-GCM with the 4-byte header as AAD.
    const kemCiphertext = envelope.subarray(4, 4 + 1088);
    const nonce = envelope.subarray(1092, 1104);
    const body = envelope.subarray(1104, envelope.length - 16);
    const tag = envelope.subarray(envelope.length - 16);
    const shared = ml_kem768.decapsulate(kemCiphertext, mlKem768.expandSecretKey(secretKey));
    const key = Buffer.from(
      hkdfSync('sha256', shared, kemCiphertext, Buffer.concat([Buffer.from('svckit/memo/v1'), addressBytes]), 32),
    );
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(envelope.subarray(0, 4));
    decipher.setAuthTag(tag);
    expect(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')).toBe(memo);
  });

  it('opens with the recipient key and address, given as hex or bytes', () => {
    expect(new TextDecoder().decode(memoEnvelope.open(secretKey, envelope, address))).toBe(memo);
    expect(
      new TextDecoder().decode(
        memoEnvelope.open(mlKem768.expandSecretKey(secretKey), envelope, new Uint8Array(addressBytes)),
      ),
    ).toBe(memo);
    expect(memoEnvelope.isEnvelope(envelope)).toBe(true);
    expect(memoEnvelope.isEnvelope(new TextEncoder().encode(memo))).toBe(false);
  });

  it('refuses another recipient address, another key, a flipped byte anywhere, and plain data', () => {
    expect(code(() => memoEnvelope.open(secretKey, envelope, `0x${'11'.repeat(20)}`))).toBe('DECRYPT_FAILED');
    expect(code(() => memoEnvelope.open(mlKem768.keygen().secretKey, envelope, address))).toBe('DECRYPT_FAILED');
    for (const index of [4, 600, 1091, 1092, 1103, 1104, envelope.length - 1]) {
      const tampered = new Uint8Array(envelope);
      tampered[index] = (tampered[index] as number) ^ 1;
      expect(
        code(() => memoEnvelope.open(secretKey, tampered, address)),
        `byte ${index}`,
      ).toBe('DECRYPT_FAILED');
    }
    const wrongVersion = new Uint8Array(envelope);
    wrongVersion[3] = 2;
    expect(code(() => memoEnvelope.open(secretKey, wrongVersion, address))).toBe('BAD_ENVELOPE');
    expect(code(() => memoEnvelope.open(secretKey, envelope.subarray(0, 1119), address))).toBe('BAD_ENVELOPE');
    expect(code(() => memoEnvelope.seal(publicKey, memo, '0x1234' as `0x${string}`))).toBe('BAD_INPUT');
  });
});
