/**
 * Cross-device sync sealing (specs/wallet.openapi.yaml rule 6 and `SyncEnvelopeData`, D-082):
 * each device has its own ML-KEM-768 key pair; a device's state is sealed separately to every other device
 * of the identity, so the server sees only ciphertext.
 *
 * Outer envelope, exactly as the contract lays it out (`SyncEnvelopeData`):
 *   data = "SVS" 0x53 0x56 0x53 || 0x01 || kemCiphertext (1,088) || nonce (12) || AES-256-GCM ciphertext || tag (16)
 *   key  = HKDF-SHA256(ikm = ML-KEM-768 shared secret, salt = kemCiphertext,
 *                      info = "svckit/sync/v1" || svcId (8) || fromDevice (8) || toDevice (8)), 32 bytes
 *   AAD  = the 4-byte header; plaintext at most 65,536 bytes.
 * Inner plaintext, the client's own format (D-121): the state signed by the identity, so a recipient
 * knows it came from a holder of the seed and not from a device the server slipped into the list:
 *   plaintext = "SVP" 0x01 || pqSig (3,309) || u16 headerLength || header JSON || state
 *   header    = {"svcId","fromDevice","toDevice","seq","createdAt"}
 *   pqSig     = ML-DSA-65 (context "svckit/sync/state/v1") over header JSON || state.
 */
import { randomBytes } from 'node:crypto';
import {
  aes256Gcm,
  concatBytes,
  equalBytes,
  fromHex,
  hkdfSha256,
  mlDsa65,
  mlKem768,
  sha3_256,
  toHex,
  type MlKem768KeyPair,
} from '../../crypto/index.ts';
import type { WalletIdentity } from './identity.ts';
import { SvcError } from '../../errors.ts';

const ENVELOPE_HEADER = Uint8Array.of(0x53, 0x56, 0x53, 0x01); // "SVS" 0x01
const PAYLOAD_HEADER = Uint8Array.of(0x53, 0x56, 0x50, 0x01); // "SVP" 0x01
const INFO_PREFIX = new TextEncoder().encode('svckit/sync/v1');
const STATE_CONTEXT = new TextEncoder().encode('svckit/sync/state/v1');
const KEM_CT = 1088;
const NONCE = 12;
const TAG = 16;
/** Largest plaintext the contract allows inside one envelope (`SyncEnvelopeData`). */
export const MAX_SYNC_PLAINTEXT = 65_536;
const SIG = 3309;
/** Largest state that fits once signed and framed (for a header of typical size). */
export const MAX_SYNC_STATE = MAX_SYNC_PLAINTEXT - PAYLOAD_HEADER.length - SIG - 2 - 160;

/** Thrown for a foreign, tampered or misaddressed envelope or payload. */
export class SyncError extends SvcError<'SYNC_REJECTED'> {
  override name = 'SyncError';
  /** Builds the error; its code is always `SYNC_REJECTED`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('SYNC_REJECTED', message, options);
  }
}

/** A sync device of this wallet: its ML-KEM-768 key pair and id. The secret key never leaves the device. */
export interface SyncDeviceKeys extends MlKem768KeyPair {
  /** hex(SHA3-256(kemPublicKey)[0..8]) (`SyncDeviceId`). */
  deviceId: string;
}

/** A device as listed by the server: its id and public key. */
export interface SyncPeer {
  deviceId: string;
  kemPublicKey: Uint8Array;
}

/** What {@link openSyncEnvelope} returns. */
export interface SyncMessage {
  svcId: string;
  fromDevice: string;
  toDevice: string;
  /** Sender's counter, chosen by the sender; recipients keep the highest seen to refuse rollbacks. */
  seq: number;
  createdAt: string;
  state: Uint8Array;
}

/** The device id of an ML-KEM-768 encapsulation key (as D-031). */
export function deviceIdOf(kemPublicKey: Uint8Array): string {
  if (kemPublicKey.length !== mlKem768.sizes.publicKey)
    throw new SyncError(`"kemPublicKey" expected ${mlKem768.sizes.publicKey} bytes, got ${kemPublicKey.length}`);
  return toHex(sha3_256(kemPublicKey).subarray(0, 8));
}

/** A fresh device key pair (random, not derived from the seed: D-121), or the one of a stored 64-byte seed. */
export function createSyncDevice(kemSeed?: Uint8Array): SyncDeviceKeys {
  const pair = kemSeed ? mlKem768.keygenFromSeed(kemSeed) : mlKem768.keygen();
  return { ...pair, deviceId: deviceIdOf(pair.publicKey) };
}

/** Seals `state` from this device to one peer: the contract's `SyncEnvelopeData` bytes. */
export function sealSyncEnvelope(
  identity: WalletIdentity,
  from: Pick<SyncDeviceKeys, 'deviceId'>,
  to: SyncPeer,
  state: Uint8Array,
  seq: number,
  now: Date = new Date(),
): Uint8Array {
  if (deviceIdOf(to.kemPublicKey) !== to.deviceId)
    throw new SyncError(`peer ${to.deviceId} is not the fingerprint of its key: refusing to seal to it`);
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new SyncError(`"seq" expected a non-negative safe integer, got ${seq}`);
  const header = new TextEncoder().encode(
    JSON.stringify({
      svcId: identity.svcId,
      fromDevice: from.deviceId,
      toDevice: to.deviceId,
      seq,
      createdAt: now.toISOString(),
    }),
  );
  const signed = concatBytes(header, state);
  const pqSig = mlDsa65.sign(identity.secretKey, signed, { context: STATE_CONTEXT });
  const plaintext = concatBytes(PAYLOAD_HEADER, pqSig, Uint8Array.of(header.length >> 8, header.length & 0xff), signed);
  if (plaintext.length > MAX_SYNC_PLAINTEXT)
    throw new SyncError(
      `state too large: the signed payload is ${plaintext.length} bytes, the contract allows ${MAX_SYNC_PLAINTEXT}`,
    );
  const { ciphertext: kemCiphertext, sharedSecret } = mlKem768.encapsulate(to.kemPublicKey);
  const nonce = new Uint8Array(randomBytes(NONCE));
  const key = envelopeKey(sharedSecret, kemCiphertext, identity.svcId, from.deviceId, to.deviceId);
  const sealed = aes256Gcm.encrypt(key, nonce, plaintext, ENVELOPE_HEADER);
  return concatBytes(ENVELOPE_HEADER, kemCiphertext, nonce, sealed);
}

/**
 * Opens an envelope addressed to this device and checks the identity's signature inside; SyncError when the
 * envelope is foreign, tampered, replayed to another device or identity, or not signed by `identityPublicKey`.
 */
export function openSyncEnvelope(
  identityPublicKey: Uint8Array,
  svcId: string,
  me: SyncDeviceKeys,
  fromDevice: string,
  data: Uint8Array,
): SyncMessage {
  if (data.length < ENVELOPE_HEADER.length + KEM_CT + NONCE + TAG || !ENVELOPE_HEADER.every((b, i) => data[i] === b)) {
    throw new SyncError('not a sync envelope: expected the header "SVS" 0x01 and at least 1,120 bytes');
  }
  const nonceAt = ENVELOPE_HEADER.length + KEM_CT;
  const kemCiphertext = data.subarray(ENVELOPE_HEADER.length, nonceAt);
  const nonce = data.subarray(nonceAt, nonceAt + NONCE);
  const sharedSecret = mlKem768.decapsulate(me.secretKey, kemCiphertext);
  let plaintext: Uint8Array;
  try {
    plaintext = aes256Gcm.decrypt(
      envelopeKey(sharedSecret, kemCiphertext, svcId, fromDevice, me.deviceId),
      nonce,
      data.subarray(nonceAt + NONCE),
      ENVELOPE_HEADER,
    );
  } catch {
    throw new SyncError(
      `sync envelope from ${fromDevice} did not open: tampered, or sealed to another device or identity`,
    );
  }
  if (!equalBytes(plaintext.subarray(0, 4), PAYLOAD_HEADER) || plaintext.length < 4 + SIG + 2)
    throw new SyncError('sync payload expected the header "SVP" 0x01');
  const pqSig = plaintext.subarray(4, 4 + SIG);
  const headerLength = (plaintext[4 + SIG]! << 8) | plaintext[5 + SIG]!;
  const signed = plaintext.subarray(6 + SIG);
  if (!mlDsa65.verify(identityPublicKey, signed, pqSig, { context: STATE_CONTEXT }))
    throw new SyncError('sync payload is not signed by the identity: refusing it');
  const header = JSON.parse(new TextDecoder().decode(signed.subarray(0, headerLength))) as Omit<SyncMessage, 'state'>;
  if (header.svcId !== svcId || header.fromDevice !== fromDevice || header.toDevice !== me.deviceId)
    throw new SyncError('sync payload names another identity or device pair');
  return { ...header, state: signed.slice(headerLength) };
}

/** Serialises a device's key seed for the keystore (hex of d || z). */
export function exportSyncDevice(device: SyncDeviceKeys): { deviceId: string; deviceKemSeed: string } {
  return { deviceId: device.deviceId, deviceKemSeed: toHex(device.secretKey) };
}

/** The device of a stored seed; SyncError when the stored id does not match. */
export function importSyncDevice(stored: { deviceId: string; deviceKemSeed: string }): SyncDeviceKeys {
  const device = createSyncDevice(fromHex(stored.deviceKemSeed));
  if (device.deviceId !== stored.deviceId)
    throw new SyncError(`stored device id ${stored.deviceId} does not match its key (${device.deviceId})`);
  return device;
}

function envelopeKey(
  sharedSecret: Uint8Array,
  kemCiphertext: Uint8Array,
  svcId: string,
  fromDevice: string,
  toDevice: string,
): Uint8Array {
  const info = concatBytes(INFO_PREFIX, id8(svcId, 'svcId'), id8(fromDevice, 'fromDevice'), id8(toDevice, 'toDevice'));
  return hkdfSha256(sharedSecret, kemCiphertext, info, 32);
}

function id8(hex: string, name: string): Uint8Array {
  if (!/^[0-9a-f]{16}$/.test(hex))
    throw new SyncError(`"${name}" expected 16 lower-case hex characters, got ${JSON.stringify(hex)}`);
  return fromHex(hex);
}
