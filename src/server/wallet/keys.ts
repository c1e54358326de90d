/**
 * The wallet service's own ML-DSA-65 keys: the session-token key (published as the JWKS, D-018) and the
 * release key that signs the browser-extension package (D-086). Each is a set of 32-byte FIPS 204 seeds
 * sealed under the KEK in the database (D-148, D-214), so every instance on one database signs and verifies
 * with the same keys; the first seed signs, the ones a rotation retired keep verifying until their
 * retirement time (D-215). Node 26 KeyObjects serve `jose` directly (alg "ML-DSA-65", kty "AKP").
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import type { Clock } from '@svckit/sdk/clock';
import { mlDsa65 } from '@svckit/sdk/crypto';
import type { Keyring } from '../../ledger/keyring.ts';
import type { Database } from '../../storage/database.ts';
import {
  changedServiceKeySet,
  serviceKeySet,
  updateServiceKeySet,
  type StoredServiceKey,
} from '../../storage/settings.ts';
import type { WalletKeyNameValue } from '@svckit/sdk/admin';

/** One ML-DSA-65 signing key of the service. */
export type ServiceKey = {
  /** RFC 7638 thumbprint of the public JWK: the token header's `kid`. */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** FIPS 204 public key bytes (1,952). */
  publicBytes: Uint8Array;
  /** The public key as an AKP JWK (D-018 `Jwk`). */
  jwk: { kty: 'AKP'; alg: 'ML-DSA-65'; kid: string; pub: string };
  /** Pure ML-DSA-65 signature (D-044) over `data`. */
  sign(data: Uint8Array): Uint8Array;
};

/** The key sets of the wallet service (D-214): the contract's key names. */
export type ServiceKeyName = WalletKeyNameValue;

/** D-215: how often an instance reads the key sets again, to take up another instance's rotation. */
export const KEY_REFRESH_MS = 2_000;

/** Builds the key of a 32-byte seed ξ (Node 26 imports ML-DSA seeds as `raw-seed`). */
export async function serviceKeyFromSeed(seed: Uint8Array): Promise<ServiceKey> {
  const privateKey = createPrivateKey({ key: Buffer.from(seed), format: 'raw-seed', asymmetricKeyType: 'ml-dsa-65' });
  const publicKey = createPublicKey(privateKey);
  const publicBytes = new Uint8Array(publicKey.export({ format: 'raw-public' }));
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  return {
    kid,
    privateKey,
    publicKey,
    publicBytes,
    jwk: { kty: 'AKP', alg: 'ML-DSA-65', kid, pub: String(exported.pub) },
    sign: (data) => mlDsa65.sign(seed, data),
  };
}

/** A fresh 32-byte seed. */
export const freshSeed = (): Uint8Array => new Uint8Array(randomBytes(32));

/**
 * The seed an svckit before D-214 kept in `<dataDir>/wallet/<name>.seed`, or undefined when there is none.
 * Read at start so that it moves into the database (D-214); {@link removeLegacySeed} deletes it afterwards.
 */
export function readLegacySeed(dataDir: string | null, name: ServiceKeyName): Uint8Array | undefined {
  if (dataDir === null) return undefined;
  const file = legacySeedFile(dataDir, name);
  if (!existsSync(file)) return undefined;
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} expected 64 hex characters (an ML-DSA-65 seed)`);
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** Deletes the seed file of {@link readLegacySeed} once the database holds its seed (D-214). */
export function removeLegacySeed(dataDir: string | null, name: ServiceKeyName): void {
  if (dataDir !== null) rmSync(legacySeedFile(dataDir, name), { force: true });
}

const legacySeedFile = (dataDir: string, name: ServiceKeyName) => path.join(dataDir, 'wallet', `${name}.seed`);

const sameSeed = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * D-215: the set after a rotation at `now`: a fresh signing key; the key that signed so far verifies until
 * `now + graceMs`; keys already retired by `now` are dropped.
 */
export function rotatedKeys(
  keys: StoredServiceKey[],
  seed: Uint8Array,
  now: number,
  graceMs: number,
): StoredServiceKey[] {
  const [current, ...previous] = keys;
  return [
    { seed, createdAt: now, retiresAt: null },
    ...(current ? [{ ...current, retiresAt: now + graceMs }] : []),
    ...previous.filter((k) => k.retiresAt !== null && k.retiresAt > now),
  ];
}

/** What a rotation did (D-215). */
export type KeyRotation = { current: ServiceKey; retired: ServiceKey; rotatedAt: number; retiresAt: number };

/**
 * D-215: makes a fresh key the signing key of the set `name`; the one that signed so far verifies until the
 * rotation time plus `graceMs`. Every instance takes it up at its next refresh ({@link KEY_REFRESH_MS}).
 */
export async function rotateServiceKey(
  options: Pick<KeyRingOptions, 'db' | 'keyring' | 'name' | 'clock' | 'graceMs'>,
): Promise<KeyRotation> {
  const { db, keyring, name, clock, graceMs } = options;
  const seed = freshSeed();
  const now = clock.now();
  let retired: StoredServiceKey | undefined;
  await updateServiceKeySet(db, keyring, name, (keys) => {
    retired = keys[0];
    return rotatedKeys(keys, seed, now, graceMs);
  });
  return {
    current: await serviceKeyFromSeed(seed),
    retired: await serviceKeyFromSeed(retired!.seed),
    rotatedAt: now,
    retiresAt: now + graceMs,
  };
}

/** What {@link ServiceKeyRing.open} needs. */
export type KeyRingOptions = {
  db: Database;
  keyring: Keyring;
  name: ServiceKeyName;
  clock: Clock;
  /** D-215: how long a key a rotation retires keeps verifying, in milliseconds. */
  graceMs: number;
  /** A seed an older svckit kept in the data directory (D-214): the first key of a new set, else kept verifying. */
  legacySeed?: Uint8Array;
};

/**
 * One key set of the service as this instance sees it: the key that signs, and every key that verifies
 * (the signing key first, then the retired ones until their retirement time). {@link verifying} is one array
 * updated in place, so that a holder of it (the session tokens) sees every refresh.
 */
export class ServiceKeyRing {
  /** The keys that verify, the signing key first; updated in place by {@link refresh}. */
  readonly verifying: ServiceKey[] = [];
  private stored = '';
  private entries: { key: ServiceKey; retiresAt: number | null }[] = [];
  private readonly built = new Map<string, ServiceKey>();

  private constructor(private readonly options: KeyRingOptions) {}

  /**
   * Opens the set `name`, creating it on the first start of a database (from the legacy seed when there is
   * one). A legacy seed that differs from the set's keys (another instance created it first) stays verifying
   * for the grace period, so that tokens this instance issued before keep working (D-214).
   */
  static async open(options: KeyRingOptions): Promise<ServiceKeyRing> {
    const { db, keyring, name, clock, legacySeed } = options;
    const ring = new ServiceKeyRing(options);
    const first = await serviceKeySet(db, keyring, name, () => [
      { seed: legacySeed ?? freshSeed(), createdAt: clock.now(), retiresAt: null },
    ]);
    if (legacySeed && !first.keys.some((k) => sameSeed(k.seed, legacySeed))) {
      await updateServiceKeySet(db, keyring, name, (keys) =>
        keys.some((k) => sameSeed(k.seed, legacySeed))
          ? undefined
          : [...keys, { seed: legacySeed, createdAt: clock.now(), retiresAt: clock.now() + options.graceMs }],
      );
      await ring.refresh();
    } else {
      await ring.apply(first.keys, first.stored);
    }
    return ring;
  }

  /** The key that signs. */
  get current(): ServiceKey {
    return this.verifying[0]!;
  }

  /** Reads the set again when it changed (another instance rotated it) and drops keys past their retirement. */
  async refresh(): Promise<void> {
    const { db, keyring, name } = this.options;
    const changed = await changedServiceKeySet(db, keyring, name, this.stored);
    if (changed) await this.apply(changed.keys, changed.stored);
    else this.publish();
  }

  /** D-215: a fresh signing key; the previous one verifies for the grace period (see {@link rotateServiceKey}). */
  async rotate(): Promise<KeyRotation> {
    const rotation = await rotateServiceKey(this.options);
    await this.refresh();
    return rotation;
  }

  private async keyOf(seed: Uint8Array): Promise<ServiceKey> {
    const hex = Buffer.from(seed).toString('hex');
    let key = this.built.get(hex);
    if (!key) {
      key = await serviceKeyFromSeed(seed);
      this.built.set(hex, key);
    }
    return key;
  }

  private async apply(keys: StoredServiceKey[], stored: string): Promise<void> {
    const entries = [];
    for (const k of keys) entries.push({ key: await this.keyOf(k.seed), retiresAt: k.retiresAt });
    const kept = new Set(entries.map((e) => e.key));
    for (const [hex, key] of this.built) if (!kept.has(key)) this.built.delete(hex);
    this.entries = entries;
    this.stored = stored;
    this.publish();
  }

  /** Replaces the contents of {@link verifying}: the signing key, then every retired key not yet past its time. */
  private publish(): void {
    const now = this.options.clock.now();
    const live = this.entries.filter((e, i) => i === 0 || (e.retiresAt !== null && e.retiresAt > now));
    this.verifying.splice(0, this.verifying.length, ...live.map((e) => e.key));
  }
}
