/**
 * The emulated QBFT network's identities: validators (address, name, post-quantum address) and the
 * observer node, all derived from one network seed kept in the database, so a restart keeps them.
 */
import { bytesToHex, concat, getAddress, hexToBytes, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { mlDsa65, sha3_256 } from '@svckit/sdk/crypto';

/** A validator of the emulated network (explorer "Validator": address, name, pqcAddress). */
export type ValidatorIdentity = {
  address: Hex;
  name: string;
  /** D-042: 0x + the last 20 bytes of SHA3-256 of the validator's ML-DSA-65 public key. */
  pqcAddress: Hex;
  /** Node public key (64 bytes, hex without 0x) as in enode URLs. */
  nodeId: string;
};

const label = (text: string) => new TextEncoder().encode(text);

/** Derives a 32-byte key for `purpose` and `index` from the network seed (keccak256 domain separation). */
function derive(seed: Uint8Array, purpose: string, index: number): Uint8Array {
  return hexToBytes(keccak256(concat([seed, label(`svckit/${purpose}/${index}`)])));
}

/** The node id (uncompressed secp256k1 public key without its 0x04 prefix) of a private key. */
function nodeIdOf(privateKey: Uint8Array): string {
  return bytesToHex(secp256k1.getPublicKey(privateKey, false).slice(1)).slice(2);
}

/** The post-quantum address of an ML-DSA-65 public key (D-042). */
export function pqcAddressOf(mldsaPublicKey: Uint8Array): Hex {
  return getAddress(toHex(sha3_256(mldsaPublicKey).slice(12)));
}

/** The `count` validators derived from `seed`, named svc-validator-1 … n. */
export function deriveValidators(seed: Uint8Array, count: number): ValidatorIdentity[] {
  return Array.from({ length: count }, (_, i) => {
    const key = derive(seed, 'validator', i);
    const { publicKey } = mlDsa65.keygenFromSeed(derive(seed, 'validator-mldsa', i));
    return {
      address: privateKeyToAccount(toHex(key)).address,
      name: `svc-validator-${i + 1}`,
      pqcAddress: pqcAddressOf(publicKey),
      nodeId: nodeIdOf(key),
    };
  });
}

/** The observer node's id, derived from the same seed. */
export function observerNodeId(seed: Uint8Array): string {
  return nodeIdOf(derive(seed, 'observer', 0));
}
