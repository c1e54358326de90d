/**
 * Cross-device sync over the contract's `/sync/*` extension (specs/wallet.openapi.yaml, D-082),
 * with the sealing of sync.ts. A device seals only to peers it trusts (D-121): the device list comes from
 * the server, which could add a key of its own, so the caller decides through `trust` (by default: devices
 * whose id the user confirmed, kept in `trustedDevices`). Received states are checked for the identity's
 * signature and for rollback (`seq` must grow per sender).
 */
import type { Client } from '../../../generated/wallet/client/index.ts';
import * as sdk from '../../../generated/wallet/sdk.gen.ts';
import type { SyncDevice } from '../../../generated/wallet/types.gen.ts';
import { fromHex, toHex } from '../../crypto/index.ts';
import type { WalletIdentity } from './identity.ts';
import { openSyncEnvelope, sealSyncEnvelope, SyncError, type SyncDeviceKeys, type SyncMessage } from './sync.ts';

/** One device's view of sync for an identity, over an authorised client (see session.authorizedClient). */
export class SyncClient {
  /** Highest `seq` accepted per sender (rollback protection). */
  readonly lastSeq = new Map<string, number>();
  /** The authorised client every call goes through. */
  readonly client: Client;
  /** The identity whose state is synchronised. */
  readonly identity: WalletIdentity;
  /** This device's ML-KEM-768 keys. */
  readonly device: SyncDeviceKeys;
  /** Device ids the user confirmed (for example by comparing ids shown on both devices). */
  readonly trustedDevices: Set<string>;

  /** `trustedDevices`: device ids the user confirmed (for example by comparing ids shown on both devices). */
  constructor(
    client: Client,
    identity: WalletIdentity,
    device: SyncDeviceKeys,
    trustedDevices: Set<string> = new Set(),
  ) {
    this.client = client;
    this.identity = identity;
    this.device = device;
    this.trustedDevices = trustedDevices;
  }

  /** PUT /sync/devices/{deviceId}: publishes this device's ML-KEM-768 public key (idempotent). */
  async register(label?: string): Promise<{ isNew: boolean; device: SyncDevice }> {
    const answer = await sdk.walletPutSyncDevice({
      client: this.client,
      path: { deviceId: this.device.deviceId },
      body: { kemPublicKey: toHex(this.device.publicKey), ...(label ? { label } : {}) },
    });
    if (!answer.data)
      throw new SyncError(`PUT /sync/devices failed: ${answer.response?.status} ${JSON.stringify(answer.error)}`);
    return answer.data;
  }

  /** GET /sync/devices: the identity's devices as the server lists them. */
  async devices(): Promise<SyncDevice[]> {
    const answer = await sdk.walletListSyncDevices({ client: this.client });
    if (!answer.data)
      throw new SyncError(`GET /sync/devices failed: ${answer.response?.status} ${JSON.stringify(answer.error)}`);
    return answer.data.devices;
  }

  /**
   * Seals `state` to every other listed device that `trust` accepts and POSTs the envelopes; returns the
   * recipients. Devices not trusted are skipped, never sealed to.
   */
  async push(
    state: Uint8Array,
    seq: number,
    trust: (device: SyncDevice) => boolean = (d) => this.trustedDevices.has(d.deviceId),
  ): Promise<string[]> {
    const peers = (await this.devices()).filter((d) => d.deviceId !== this.device.deviceId && trust(d));
    if (peers.length === 0) return [];
    const envelopes = peers.map((peer) => ({
      toDevice: peer.deviceId,
      data: Buffer.from(
        sealSyncEnvelope(
          this.identity,
          this.device,
          { deviceId: peer.deviceId, kemPublicKey: fromHex(peer.kemPublicKey) },
          state,
          seq,
        ),
      ).toString('base64'),
    }));
    const answer = await sdk.walletPostSyncEnvelopes({
      client: this.client,
      body: { fromDevice: this.device.deviceId, envelopes },
    });
    if (!answer.data)
      throw new SyncError(`POST /sync/envelopes failed: ${answer.response?.status} ${JSON.stringify(answer.error)}`);
    return peers.map((p) => p.deviceId);
  }

  /** GET /sync/envelopes?device=me: opens each envelope; refuses unsigned, misaddressed or rolled-back ones. */
  async pull(): Promise<{ accepted: SyncMessage[]; refused: Array<{ fromDevice: string; reason: string }> }> {
    const answer = await sdk.walletListSyncEnvelopes({ client: this.client, query: { device: this.device.deviceId } });
    if (!answer.data)
      throw new SyncError(`GET /sync/envelopes failed: ${answer.response?.status} ${JSON.stringify(answer.error)}`);
    const accepted: SyncMessage[] = [];
    const refused: Array<{ fromDevice: string; reason: string }> = [];
    for (const item of answer.data.items) {
      try {
        const message = openSyncEnvelope(
          this.identity.publicKey,
          this.identity.svcId,
          this.device,
          item.fromDevice,
          new Uint8Array(Buffer.from(item.data, 'base64')),
        );
        const last = this.lastSeq.get(item.fromDevice);
        if (last !== undefined && message.seq <= last)
          throw new SyncError(`seq ${message.seq} is not above ${last}: a replayed or rolled-back state`);
        this.lastSeq.set(item.fromDevice, message.seq);
        accepted.push(message);
      } catch (error) {
        refused.push({ fromDevice: item.fromDevice, reason: (error as Error).message });
      }
    }
    return { accepted, refused };
  }

  /** DELETE /sync/devices/{deviceId}: retires a lost device and stops trusting it. */
  async remove(deviceId: string): Promise<void> {
    const answer = await sdk.walletDeleteSyncDevice({ client: this.client, path: { deviceId } });
    if (answer.response?.status !== 204)
      throw new SyncError(
        `DELETE /sync/devices/${deviceId} failed: ${answer.response?.status} ${JSON.stringify(answer.error)}`,
      );
    this.trustedDevices.delete(deviceId);
  }
}
