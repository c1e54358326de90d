// Byte helpers for the façade: every key, signature and ciphertext is a Uint8Array (house rule 4:
// guards at the edges, with messages that say what was expected and what was got).
import { timingSafeEqual } from 'node:crypto';
import { CryptoError } from './errors.ts';

/** Throws CryptoError('BAD_INPUT') unless `value` is a Uint8Array. */
export function assertBytes(name: string, value: unknown): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new CryptoError('BAD_INPUT', `"${name}" expected Uint8Array, got ${describe(value)}`);
  }
}

/** Throws CryptoError('BAD_LENGTH') unless `value` is a Uint8Array of one of the given lengths. */
export function assertLength(name: string, value: unknown, ...lengths: number[]): asserts value is Uint8Array {
  assertBytes(name, value);
  if (!lengths.includes(value.length)) {
    throw new CryptoError('BAD_LENGTH', `"${name}" expected ${lengths.join(' or ')} bytes, got ${value.length}`);
  }
}

/** Lower-case hex of the bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Bytes of a hex string (either case, optional 0x); throws CryptoError('BAD_INPUT') on anything else. */
export function fromHex(hex: string): Uint8Array {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new CryptoError(
      'BAD_INPUT',
      `expected an even number of hex digits, got ${JSON.stringify(hex.slice(0, 24))}`,
    );
  }
  return new Uint8Array(Buffer.from(digits, 'hex'));
}

/** The concatenation of the parts, as a fresh Uint8Array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Equal length and content, compared in constant time for equal lengths. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A Uint8Array view of a Buffer (or any view) without copying. */
export function asUint8Array(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}
