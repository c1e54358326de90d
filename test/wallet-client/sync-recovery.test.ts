// Rule 6 (cross-device sync: ML-KEM-768 + HKDF + AES-256-GCM, `SyncEnvelopeData`) and rule 8 (2-of-3 guardian
// recovery, shares split on the device, the service holds at most one share).
import { describe, expect, it } from 'vitest';
import { deriveIdentity } from '../../src/client/wallet/identity.ts';
import { generateMnemonic, mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import {
  openServiceShare,
  recoverFromShares,
  RecoveryError,
  sealServiceShare,
  splitForGuardians,
} from '../../src/client/wallet/recovery.ts';
import {
  createSyncDevice,
  openSyncEnvelope,
  sealSyncEnvelope,
  SyncError,
  type SyncDeviceKeys,
} from '../../src/client/wallet/sync.ts';
import { TEST_MNEMONIC } from './support.ts';

const identity = deriveIdentity(mnemonicToSeed(TEST_MNEMONIC));
const peer = (d: SyncDeviceKeys) => ({ deviceId: d.deviceId, kemPublicKey: d.publicKey });

describe('sync envelope', () => {
  const laptop = createSyncDevice();
  const phone = createSyncDevice();
  const state = new TextEncoder().encode(JSON.stringify({ contacts: ['alice'], customNetworks: [31337] }));

  it('round-trips from one device to another, with the contract layout', () => {
    const data = sealSyncEnvelope(identity, laptop, peer(phone), state, 7);
    expect([...data.subarray(0, 4)]).toEqual([0x53, 0x56, 0x53, 0x01]); // "SVS" 0x01
    expect(data.length).toBeGreaterThanOrEqual(1120);
    expect(Buffer.from(data).includes(Buffer.from('alice'))).toBe(false); // the server sees only ciphertext
    const opened = openSyncEnvelope(identity.publicKey, identity.svcId, phone, laptop.deviceId, data);
    expect(new TextDecoder().decode(opened.state)).toBe(new TextDecoder().decode(state));
    expect(opened).toMatchObject({
      svcId: identity.svcId,
      fromDevice: laptop.deviceId,
      toDevice: phone.deviceId,
      seq: 7,
    });
  });

  it('fails when any byte is changed (KEM ciphertext, nonce, body, tag or header)', () => {
    const data = sealSyncEnvelope(identity, laptop, peer(phone), state, 1);
    for (const at of [3, 4, 500, 4 + 1088, 4 + 1088 + 12, data.length - 1]) {
      const tampered = data.slice();
      tampered[at]! ^= 0x01;
      expect(
        () => openSyncEnvelope(identity.publicKey, identity.svcId, phone, laptop.deviceId, tampered),
        `byte ${at}`,
      ).toThrow(SyncError);
    }
  });

  it('does not open on another device, for another sender or another identity (bound by HKDF info)', () => {
    const tablet = createSyncDevice();
    const data = sealSyncEnvelope(identity, laptop, peer(phone), state, 1);
    expect(() => openSyncEnvelope(identity.publicKey, identity.svcId, tablet, laptop.deviceId, data)).toThrow(
      SyncError,
    );
    expect(() => openSyncEnvelope(identity.publicKey, identity.svcId, phone, tablet.deviceId, data)).toThrow(SyncError);
    expect(() => openSyncEnvelope(identity.publicKey, '0000000000000000', phone, laptop.deviceId, data)).toThrow(
      SyncError,
    );
  });

  it("refuses a state not signed by the identity, and a peer whose id is not its key's fingerprint", () => {
    const stranger = deriveIdentity(mnemonicToSeed(generateMnemonic()));
    const forged = sealSyncEnvelope({ ...stranger, svcId: identity.svcId }, laptop, peer(phone), state, 1);
    expect(() => openSyncEnvelope(identity.publicKey, identity.svcId, phone, laptop.deviceId, forged)).toThrow(
      /not signed by the identity/,
    );
    expect(() =>
      sealSyncEnvelope(identity, laptop, { deviceId: laptop.deviceId, kemPublicKey: phone.publicKey }, state, 1),
    ).toThrow(/fingerprint/);
    expect(() => sealSyncEnvelope(identity, laptop, peer(phone), new Uint8Array(70_000), 1)).toThrow(/too large/);
  });
});

describe('2-of-3 guardian recovery (Shamir, on the device)', () => {
  it('any two shares recover the mnemonic', async () => {
    const shares = await splitForGuardians(TEST_MNEMONIC);
    expect(Object.keys(shares)).toEqual(['device', 'guardian', 'service']);
    const { device, guardian, service } = shares;
    for (const pair of [
      [device, guardian],
      [device, service],
      [guardian, service],
      [service, device],
    ]) {
      expect(await recoverFromShares(pair)).toBe(TEST_MNEMONIC);
    }
  });

  it('one share does not: refused, and it carries nothing of the entropy on its own', async () => {
    const shares = await splitForGuardians(TEST_MNEMONIC);
    await expect(recoverFromShares([shares.service])).rejects.toThrow(RecoveryError);
    await expect(recoverFromShares([shares.service, shares.service])).rejects.toThrow(/2 distinct shares/);
    // The all-zero entropy of the test mnemonic does not show through a single share.
    const raw = Buffer.from(shares.service.share, 'base64url');
    expect(raw.subarray(0, 16).every((b) => b === 0)).toBe(false);
  });

  it('detects a corrupt share or shares of different splits through the svcId', async () => {
    const a = await splitForGuardians(TEST_MNEMONIC);
    const b = await splitForGuardians(TEST_MNEMONIC);
    await expect(recoverFromShares([a.device, b.guardian])).rejects.toThrow(RecoveryError);
    const bad = Buffer.from(a.guardian.share, 'base64url');
    bad[3]! ^= 0x40;
    await expect(recoverFromShares([a.device, { ...a.guardian, share: bad.toString('base64url') }])).rejects.toThrow(
      RecoveryError,
    );
    await expect(recoverFromShares([a.device, a.guardian], 'wrong passphrase')).rejects.toThrow(/passphrase/);
  });

  it('only the service share can be sealed for the service, under the account password', async () => {
    const shares = await splitForGuardians(TEST_MNEMONIC);
    await expect(sealServiceShare(shares.guardian, 'pw')).rejects.toThrow(/only the "service" share/);
    const sealed = await sealServiceShare(shares.service, 'account pw', {
      params: { memoryKiB: 8192, passes: 1, parallelism: 1 },
    });
    expect(JSON.stringify(sealed)).not.toContain(shares.service.share);
    const opened = await openServiceShare(sealed, 'account pw');
    expect(await recoverFromShares([opened, shares.device])).toBe(TEST_MNEMONIC);
  });
});
