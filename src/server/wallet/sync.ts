/**
 * Cross-device sync (extension, D-082). spec rule 6: "cross-device sync uses ML-KEM-768 (FIPS 203) key
 * encapsulation with AES-256-GCM, so the server sees only ciphertext". Devices register their ML-KEM-768
 * encapsulation keys; each device posts its state sealed to every other device. The server checks the
 * envelope's header and length — so plaintext is refused, never stored — and cannot open it.
 */
import { z } from 'zod';
import type {
  SyncDevice,
  SyncDeviceList,
  SyncDeviceRegistered,
  SyncEnvelopeList,
  SyncPostResponse,
} from '@svckit/sdk/wallet';
import { zSyncDeviceId, zSyncDeviceRequest, zSyncEnvelopeInput, zSyncPostRequest } from '@svckit/sdk/wallet/zod';
import type { Clock } from '@svckit/sdk/clock';
import { fromHex, mlKem768, sha3_256, toHex } from '@svckit/sdk/crypto';
import type { Database } from '../../storage/database.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard } from '../http/guards.ts';
import type { SyncBudgets } from '../../config.ts';
import {
  deleteDevice,
  devices,
  envelopesFor,
  ipKey,
  purgeIpWrites,
  putDevice,
  putEnvelopes,
  type DeviceRow,
  type SyncWriter,
} from './sync-store.ts';

/** The envelope header "SVS" ‖ 0x01 (D-082). */
export const SYNC_HEADER = Uint8Array.of(0x53, 0x56, 0x53, 0x01);
/** Header, ML-KEM-768 ciphertext, nonce and tag around an empty state. */
export const SYNC_MIN_BYTES = 4 + 1088 + 12 + 16;
/** Plaintext states up to 64 KiB. */
export const SYNC_MAX_BYTES = SYNC_MIN_BYTES + 65_536;
/** Devices per identity. */
export const MAX_DEVICES = 32;

const EXPLAIN = {
  deviceId: '16 lower-case hex characters',
  device: '16 lower-case hex characters',
  fromDevice: '16 lower-case hex characters',
  'envelopes[].toDevice': '16 lower-case hex characters',
  kemPublicKey: '2368 hex characters (a 1184-byte ML-KEM-768 encapsulation key)',
  'envelopes[].data': `base64 of a sealed sync envelope (${SYNC_MIN_BYTES} to ${SYNC_MAX_BYTES} bytes)`,
};

const deviceBody = zSyncDeviceRequest.strict();
const deviceIdParams = z.object({ deviceId: zSyncDeviceId });
const deviceQuery = z.object({ device: zSyncDeviceId }).strict();
// `data` is checked by envelopeBytes, so that anything not an envelope gets the one NOT_AN_ENVELOPE answer.
const envelopeInput = zSyncEnvelopeInput.extend({ data: z.string().max(Math.ceil(SYNC_MAX_BYTES / 3) * 4) }).strict();
const postBody = zSyncPostRequest.extend({ envelopes: z.array(envelopeInput).min(1).max(MAX_DEVICES) }).strict();

const deviceView = (row: DeviceRow): SyncDevice => ({
  deviceId: row.deviceId,
  kemPublicKey: toHex(row.kemPublicKey),
  label: row.label,
  createdAt: row.createdAt.toISOString(),
});

/** Sync devices and envelopes of the token's identity, within the sync budgets (D-217, D-218). */
export class SyncService {
  private lastPurge = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly budgets: SyncBudgets,
  ) {}

  /** The writer of a request from `ip`; per-IP counts past the window are swept at most once an hour. */
  private async writer(ip: string): Promise<SyncWriter> {
    const now = new Date(this.clock.now());
    if (now.getTime() - this.lastPurge >= 3_600_000) {
      this.lastPurge = now.getTime();
      await purgeIpWrites(this.db, now);
    }
    return { ipKey: ipKey(ip), now, budgets: this.budgets };
  }

  /** GET /sync/devices. */
  async list(svcId: string): Promise<SyncDeviceList> {
    return { devices: (await devices(this.db, svcId)).map(deviceView) };
  }

  /** PUT /sync/devices/{deviceId} from client IP `ip`: deviceId must be the key's fingerprint (as D-031). */
  async put(svcId: string, params: unknown, body: unknown, ip: string): Promise<SyncDeviceRegistered> {
    const { deviceId } = guard(deviceIdParams, params, EXPLAIN);
    const input = guard(deviceBody, body, EXPLAIN);
    const key = fromHex(input.kemPublicKey.toLowerCase());
    try {
      // FIPS 203 §7.2 encapsulation-key check: an encapsulation succeeds only on a well-formed key.
      mlKem768.encapsulate(key);
    } catch {
      throw new RestError(
        ErrorCode.INVALID_PARAMETER,
        '"kemPublicKey" expected a valid ML-KEM-768 encapsulation key (FIPS 203 modulus check failed)',
      );
    }
    if (toHex(sha3_256(key).subarray(0, 8)) !== deviceId) {
      throw new RestError(
        ErrorCode.DEVICE_ID_MISMATCH,
        `"deviceId" expected the fingerprint of kemPublicKey (first 8 bytes of SHA3-256, hex), got "${deviceId}"`,
      );
    }
    const row = {
      svcId,
      deviceId,
      kemPublicKey: key,
      label: input.label ?? null,
      createdAt: new Date(this.clock.now()),
    };
    const result = await putDevice(this.db, row, MAX_DEVICES, await this.writer(ip));
    if (!result)
      throw new RestError(
        ErrorCode.TOO_MANY_DEVICES,
        `svcId ${svcId} already has ${MAX_DEVICES} devices; remove one first (DELETE /sync/devices/{deviceId})`,
      );
    return { isNew: result.isNew, device: deviceView(result.device) };
  }

  /** DELETE /sync/devices/{deviceId}. */
  async remove(svcId: string, params: unknown): Promise<void> {
    const { deviceId } = guard(deviceIdParams, params, EXPLAIN);
    if (!(await deleteDevice(this.db, svcId, deviceId)))
      throw new RestError(ErrorCode.DEVICE_NOT_FOUND, `device ${deviceId} is not registered for svcId ${svcId}`);
  }

  /** POST /sync/envelopes from client IP `ip`: stores sealed envelopes after checking header, length and both devices. */
  async post(svcId: string, body: unknown, ip: string): Promise<SyncPostResponse> {
    const input = guard(postBody, body, EXPLAIN);
    const known = new Set((await devices(this.db, svcId)).map((d) => d.deviceId));
    if (!known.has(input.fromDevice)) {
      throw new RestError(
        ErrorCode.DEVICE_NOT_FOUND,
        `"fromDevice" expected a device registered for svcId ${svcId}, got "${input.fromDevice}"`,
        { details: { field: 'fromDevice' } },
      );
    }
    const seen = new Set<string>();
    const items = input.envelopes.map((e, i) => {
      if (!known.has(e.toDevice)) {
        const field = `envelopes[${i}].toDevice`;
        throw new RestError(
          ErrorCode.DEVICE_NOT_FOUND,
          `"${field}" expected a device registered for svcId ${svcId}, got "${e.toDevice}"`,
          { details: { field } },
        );
      }
      if (seen.has(e.toDevice))
        throw new RestError(
          ErrorCode.INVALID_PARAMETER,
          `"envelopes[${i}].toDevice" expected each recipient once, got "${e.toDevice}" twice`,
        );
      seen.add(e.toDevice);
      return { toDevice: e.toDevice, data: envelopeBytes(`envelopes[${i}].data`, e.data) };
    });
    const writer = await this.writer(ip);
    await putEnvelopes(this.db, svcId, input.fromDevice, items, writer);
    return { stored: items.length, updatedAt: writer.now.toISOString() };
  }

  /** GET /sync/envelopes?device=…: the latest envelope from each device to `device`. */
  async fetch(svcId: string, query: unknown): Promise<SyncEnvelopeList> {
    const { device } = guard(deviceQuery, query, EXPLAIN);
    if (!(await devices(this.db, svcId)).some((d) => d.deviceId === device))
      throw new RestError(ErrorCode.DEVICE_NOT_FOUND, `device ${device} is not registered for svcId ${svcId}`);
    const rows = await envelopesFor(this.db, svcId, device);
    return {
      device,
      items: rows.map((r) => ({
        fromDevice: r.fromDevice,
        toDevice: r.toDevice,
        data: Buffer.from(r.data).toString('base64'),
        version: r.version,
        updatedAt: r.updatedAt.toISOString(),
      })),
    };
  }
}

/** Decodes and checks one envelope: strict base64, the "SVS" 0x01 header and the length bounds. */
function envelopeBytes(field: string, text: string): Uint8Array {
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  const canonical = Buffer.from(bytes).toString('base64') === text;
  const headerOk = SYNC_HEADER.every((b, i) => bytes[i] === b);
  if (!canonical || !headerOk || bytes.length < SYNC_MIN_BYTES || bytes.length > SYNC_MAX_BYTES) {
    throw new RestError(
      ErrorCode.NOT_AN_ENVELOPE,
      `"${field}" expected a sealed sync envelope (base64 of "SVS" 0x01, ML-KEM-768 ciphertext, nonce, AES-256-GCM ciphertext and tag, ${SYNC_MIN_BYTES} to ${SYNC_MAX_BYTES} bytes), got ${bytes.length} bytes`,
    );
  }
  return bytes;
}
