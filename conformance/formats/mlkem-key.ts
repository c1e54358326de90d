/**
 * The `mlkem768-encapsulation-key` string format of the wallet contract (D-188): the hex of a 1,184-byte
 * ML-KEM-768 encapsulation key that passes the FIPS 203 §7.2 modulus check, which a length and a character
 * pattern cannot state. The check is an encapsulation through the crypto façade, as the server does; values
 * are generated from real key pairs.
 */
import type { Ajv } from 'ajv';
import fc from 'fast-check';
import { fromHex, mlKem768, toHex } from '@svckit/sdk/crypto';

/** The format's name, as the contracts write it. */
export const MLKEM_KEY_FORMAT = 'mlkem768-encapsulation-key';

/** True for the hex of a well-formed ML-KEM-768 encapsulation key (either case). */
export function isMlKemEncapsulationKey(value: string): boolean {
  if (!/^[0-9a-fA-F]{2368}$/.test(value)) return false;
  try {
    mlKem768.encapsulate(fromHex(value.toLowerCase()));
    return true;
  } catch {
    return false;
  }
}

/** Registers the format with an ajv instance; returns it. */
export function addMlKemKeyFormat<T extends Pick<Ajv, 'addFormat'>>(ajv: T): T {
  ajv.addFormat(MLKEM_KEY_FORMAT, { type: 'string', validate: isMlKemEncapsulationKey });
  return ajv;
}

/** Encapsulation keys of key pairs made from random 64-byte seeds (d || z). */
export function mlKemEncapsulationKey(): fc.Arbitrary<string> {
  return fc
    .uint8Array({ minLength: mlKem768.sizes.seed, maxLength: mlKem768.sizes.seed })
    .map((seed) => toHex(mlKem768.keygenFromSeed(seed).publicKey));
}
