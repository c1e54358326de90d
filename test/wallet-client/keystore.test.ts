// Rule 8: the AES-256-GCM keystore with an Argon2id key (D-120). node:crypto's argon2 is checked against
// the RFC 9106 §5.3 test vector and against @noble/hashes; the file round-trips, and a wrong password or a
// changed parameter fails.
import { argon2id } from '@noble/hashes/argon2.js';
import { describe, expect, it } from 'vitest';
import {
  argon2idKey,
  openKeystore,
  openWalletSecrets,
  sealKeystore,
  sealWalletSecrets,
} from '../../src/client/wallet/keystore.ts';
import { DEFAULT_ARGON2ID, KeystoreError } from '../../src/client/wallet/keystore-format.ts';
import { bytesToHex } from '../../src/client/wallet/codec.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { FAST_ARGON2, TEST_MNEMONIC } from './support.ts';

const FAST = FAST_ARGON2;

describe('Argon2id through node:crypto', () => {
  it('matches the RFC 9106 §5.3 Argon2id test vector', async () => {
    const tag = await argon2idKey(
      new Uint8Array(32).fill(1),
      new Uint8Array(16).fill(2),
      { memoryKiB: 32, passes: 3, parallelism: 4 },
      {
        secret: new Uint8Array(8).fill(3),
        associatedData: new Uint8Array(12).fill(4),
      },
    );
    expect(bytesToHex(tag)).toBe('0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659');
  });

  it("agrees with @noble/hashes (the extension's implementation) on the keystore parameters", async () => {
    const salt = new Uint8Array(16).fill(7);
    const node = await argon2idKey(new TextEncoder().encode('correct horse'), salt, FAST);
    const noble = argon2id('correct horse', salt, {
      m: FAST.memoryKiB,
      t: FAST.passes,
      p: FAST.parallelism,
      dkLen: 32,
    });
    expect(bytesToHex(node)).toBe(bytesToHex(noble));
  });
});

describe('keystore file', () => {
  it('round-trips with the default parameters (RFC 9106 second recommended option)', async () => {
    const file = await sealKeystore('pa55 wörd', new TextEncoder().encode('secret'), { label: 'me' });
    expect(file.kdf).toMatchObject({ name: 'argon2id', v: 19, memoryKiB: 65_536, passes: 3, parallelism: 4 });
    expect(DEFAULT_ARGON2ID).toEqual({ memoryKiB: 65_536, passes: 3, parallelism: 4 });
    expect(file.cipher.name).toBe('aes-256-gcm');
    expect(new TextDecoder().decode(await openKeystore('pa55 wörd', JSON.stringify(file)))).toBe('secret');
    // NFKC: the composed and decomposed forms of "ö" are the same password on every device.
    expect(new TextDecoder().decode(await openKeystore('pa55 wo\u0308rd', file))).toBe('secret');
  });

  it('fails with the wrong password', async () => {
    const file = await sealKeystore('right', new Uint8Array([1, 2, 3]), { params: FAST });
    await expect(openKeystore('wrong', file)).rejects.toMatchObject({
      name: 'KeystoreError',
      code: 'WRONG_PASSWORD_OR_TAMPERED',
    });
  });

  it('fails when a parameter, the label or the ciphertext was changed (all authenticated)', async () => {
    const file = await sealKeystore('pw', new Uint8Array([9]), { params: FAST, label: 'a' });
    await expect(openKeystore('pw', { ...file, kdf: { ...file.kdf, passes: 2 } })).rejects.toThrow(KeystoreError);
    await expect(openKeystore('pw', { ...file, label: 'b' })).rejects.toThrow(
      /wrong password, or the file was changed/,
    );
    const bytes = Buffer.from(file.ciphertext, 'base64url');
    bytes[0]! ^= 1;
    await expect(openKeystore('pw', { ...file, ciphertext: bytes.toString('base64url') })).rejects.toThrow(
      KeystoreError,
    );
  });

  it('refuses weak or absurd parameters before deriving anything', async () => {
    const file = await sealKeystore('pw', new Uint8Array([9]), { params: FAST });
    await expect(openKeystore('pw', { ...file, kdf: { ...file.kdf, memoryKiB: 64 } })).rejects.toMatchObject({
      code: 'WEAK_PARAMETERS',
    });
    await expect(
      openKeystore('pw', { ...file, kdf: { ...file.kdf, memoryKiB: 64 * 1024 * 1024 } }),
    ).rejects.toMatchObject({ code: 'WEAK_PARAMETERS' });
    await expect(openKeystore('pw', '{"format":"other"}')).rejects.toMatchObject({ code: 'BAD_FORMAT' });
  });

  it('holds a wallet: the same svcId and addresses after a round trip', async () => {
    const wallet = Wallet.fromMnemonic(TEST_MNEMONIC);
    void wallet.syncDevice; // create the device key so it is stored too
    const file = await wallet.exportKeystore('hunter2', { params: FAST });
    expect(file.label).toBe(wallet.svcId);
    expect(JSON.stringify(file)).not.toContain('abandon');
    const again = await Wallet.fromKeystore(file, 'hunter2');
    expect(again.svcId).toBe(wallet.svcId);
    expect(again.address('bitcoin')).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(again.syncDevice.deviceId).toBe(wallet.syncDevice.deviceId);
    await expect(openWalletSecrets('hunter3', file)).rejects.toThrow(KeystoreError);
    const secrets = await sealWalletSecrets('x', { mnemonic: TEST_MNEMONIC, passphrase: 'TREZOR' }, { params: FAST });
    expect((await Wallet.fromKeystore(secrets, 'x')).svcId).not.toBe(wallet.svcId);
  });
});
