/**
 * Key-encryption keys (KEKs) for account keys at rest ("encrypted at rest with AES-256-GCM under a
 * key-encryption key, configurable and rotatable"), and for webhook signing secrets (D-130). The keyring
 * lives in `<dataDir>/keks.json` (mode 0600), or in memory for tests; SVC_KEK (base64url, 32 bytes)
 * supplies the active key from outside instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { aes256Gcm } from '@svckit/sdk/crypto';
import { resourceId } from './ids.ts';

type KeyringFile = { active: string; keys: Record<string, string> };

/** The KEKs by id, with one active for new wraps. */
export class Keyring {
  private constructor(
    private state: KeyringFile,
    private readonly file: string | undefined,
    /** True when the KEK comes from SVC_KEK: it is rotated outside svckit. */
    readonly external = false,
  ) {}

  /** Opens the keyring: SVC_KEK if given, else the data directory's file (created on first start), else memory. */
  static open(options: { dataDir: string | null; envKek?: string }): Keyring {
    if (options.envKek) {
      const key = Buffer.from(options.envKek, 'base64url');
      if (key.length !== 32) throw new Error('SVC_KEK expected 32 bytes in base64url');
      const id = `kek_${createHash('sha256').update(key).digest('hex').slice(0, 26).toUpperCase()}`;
      return new Keyring({ active: id, keys: { [id]: options.envKek } }, undefined, true);
    }
    if (options.dataDir === null) return new Keyring(Keyring.fresh(), undefined);
    const file = path.join(options.dataDir, 'keks.json');
    if (existsSync(file)) return new Keyring(JSON.parse(readFileSync(file, 'utf8')) as KeyringFile, file);
    const keyring = new Keyring(Keyring.fresh(), file);
    keyring.save();
    return keyring;
  }

  private static fresh(): KeyringFile {
    const id = resourceId('kek');
    return { active: id, keys: { [id]: randomBytes(32).toString('base64url') } };
  }

  /** The id of the KEK used for new wraps. */
  get activeId(): string {
    return this.state.active;
  }

  private key(id: string): Uint8Array {
    const key = this.state.keys[id];
    if (!key) throw new Error(`key-encryption key ${id} is not in the keyring`);
    return Buffer.from(key, 'base64url');
  }

  /** Whether KEK `id` is in the keyring (a rotation drops the previous one once every DEK is re-wrapped). */
  holds(id: string): boolean {
    return Object.hasOwn(this.state.keys, id);
  }

  /** Wraps a data-encryption key under the active KEK: nonce (12) || ciphertext || tag, AAD the KEK id. */
  wrap(dek: Uint8Array): { kekId: string; wrapped: Uint8Array } {
    return { kekId: this.activeId, wrapped: this.encrypt(dek, this.activeId) };
  }

  /** Unwraps a data-encryption key wrapped by `kekId`. */
  unwrap(kekId: string, wrapped: Uint8Array): Uint8Array {
    return this.decrypt(kekId, wrapped, kekId);
  }

  /**
   * Seals a small secret under the active KEK, bound to `context` (what it is and whose), so that a sealed
   * value moved to another row does not open: the same layout as {@link wrap}, AAD `<kekId>|<context>`.
   */
  seal(data: Uint8Array, context: string): { kekId: string; sealed: Uint8Array } {
    return { kekId: this.activeId, sealed: this.encrypt(data, `${this.activeId}|${context}`) };
  }

  /** Opens what {@link seal} sealed under `kekId` for `context`; throws when the context or bytes differ. */
  open(kekId: string, sealed: Uint8Array, context: string): Uint8Array {
    return this.decrypt(kekId, sealed, `${kekId}|${context}`);
  }

  /** AES-256-GCM under the active KEK with a fresh nonce: nonce (12) || ciphertext || tag. */
  private encrypt(data: Uint8Array, aad: string): Uint8Array {
    const nonce = randomBytes(12);
    return Buffer.concat([
      nonce,
      aes256Gcm.encrypt(this.key(this.activeId), nonce, data, new TextEncoder().encode(aad)),
    ]);
  }

  private decrypt(kekId: string, sealed: Uint8Array, aad: string): Uint8Array {
    return aes256Gcm.decrypt(
      this.key(kekId),
      sealed.subarray(0, 12),
      sealed.subarray(12),
      new TextEncoder().encode(aad),
    );
  }

  /** Adds a new KEK and makes it active; the old ones stay until {@link retain} drops them. */
  addActive(): { previous: string; next: string } {
    if (this.external) throw new Error('the KEK comes from SVC_KEK; rotate it there');
    const previous = this.state.active;
    const next = resourceId('kek');
    this.state = { active: next, keys: { ...this.state.keys, [next]: randomBytes(32).toString('base64url') } };
    this.save();
    return { previous, next };
  }

  /** Keeps only the active KEK (after every wrap was moved to it). */
  retainActiveOnly(): void {
    this.state = { active: this.state.active, keys: { [this.state.active]: this.state.keys[this.state.active]! } };
    this.save();
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const partial = `${this.file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    renameSync(partial, this.file); // atomic replace: a crash never leaves half a keyring
  }
}
