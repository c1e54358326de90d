/**
 * Bitcoin transactions spending P2WPKH outputs (BIP-84 keys, rule 9: "Signing and broadcasting happen on the
 * client"): serialisation (BIP-144), the BIP-143 signature hash, ECDSA signatures in DER with low S (BIP-62,
 * BIP-66) and RFC 6979 nonces, SIGHASH_ALL. Only what the wallet's own sends need.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hash160, hexToBytes, KeyError, p2wpkhProgram } from './codec.ts';
import { compactSize, concat } from './sign-message.ts';

/** SIGHASH_ALL. */
export const SIGHASH_ALL = 0x01;
/** Dust limit of a P2WPKH output at the default relay fee (Bitcoin Core GetDustThreshold: 294 sat). */
export const P2WPKH_DUST = 294n;

/** An input: the outpoint (txid in display order, as explorers show it), its value and sequence. */
export interface BtcInput {
  txid: string;
  vout: number;
  /** Value of the spent output in satoshi (BIP-143 signs it). */
  value: bigint;
  /** Default 0xfffffffd (opt-in RBF, BIP-125). */
  sequence?: number;
  /** Witness stack once signed. */
  witness?: Uint8Array[];
}

/** An output: scriptPubKey and value in satoshi. */
export interface BtcOutput {
  script: Uint8Array;
  value: bigint;
}

/** An unsigned or signed transaction. */
export interface BtcTransaction {
  version: number;
  inputs: BtcInput[];
  outputs: BtcOutput[];
  locktime: number;
}

/** scriptPubKey of a `bc1q` address: OP_0 PUSH20 <program>. */
export function p2wpkhScript(address: string): Uint8Array {
  return concat(Uint8Array.of(0x00, 0x14), p2wpkhProgram(address));
}

/** BIP-143 scriptCode of a P2WPKH key: OP_DUP OP_HASH160 PUSH20 <HASH160(pk)> OP_EQUALVERIFY OP_CHECKSIG. */
export function p2wpkhScriptCode(compressedPublicKey: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(0x76, 0xa9, 0x14), hash160(compressedPublicKey), Uint8Array.of(0x88, 0xac));
}

/** Double SHA-256. */
export const sha256d = (data: Uint8Array) => sha256(sha256(data));

/** BIP-143 signature hash of input `index` (witness v0). */
export function bip143Sighash(
  tx: BtcTransaction,
  index: number,
  scriptCode: Uint8Array,
  value: bigint,
  sighashType = SIGHASH_ALL,
): Uint8Array {
  const input = tx.inputs[index];
  if (!input) throw new KeyError(`no input ${index}`);
  if (sighashType !== SIGHASH_ALL) throw new KeyError('only SIGHASH_ALL is supported');
  const hashPrevouts = sha256d(concat(...tx.inputs.map(outpoint)));
  const hashSequence = sha256d(concat(...tx.inputs.map((i) => u32(sequenceOf(i)))));
  const hashOutputs = sha256d(concat(...tx.outputs.map(serializeOutput)));
  return sha256d(
    concat(
      u32(tx.version),
      hashPrevouts,
      hashSequence,
      outpoint(input),
      compactSize(scriptCode.length),
      scriptCode,
      u64(value),
      u32(sequenceOf(input)),
      hashOutputs,
      u32(tx.locktime),
      u32(sighashType),
    ),
  );
}

/** Signs every input as a P2WPKH spend of one key (all inputs belong to the sender's address). */
export function signP2wpkhInputs(tx: BtcTransaction, privateKey: Uint8Array): BtcTransaction {
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const scriptCode = p2wpkhScriptCode(publicKey);
  const inputs = tx.inputs.map((input, index) => {
    const digest = bip143Sighash(tx, index, scriptCode, input.value);
    const der = secp256k1.sign(digest, privateKey, { prehash: false, lowS: true, format: 'der' });
    return { ...input, witness: [concat(der, Uint8Array.of(SIGHASH_ALL)), publicKey] };
  });
  return { ...tx, inputs };
}

/** BIP-144 serialisation (with marker, flag and witnesses when any input has one). */
export function serializeTransaction(tx: BtcTransaction, withWitness = true): Uint8Array {
  const segwit = withWitness && tx.inputs.some((i) => i.witness?.length);
  const parts: Uint8Array[] = [u32(tx.version)];
  if (segwit) parts.push(Uint8Array.of(0x00, 0x01));
  parts.push(compactSize(tx.inputs.length));
  for (const input of tx.inputs) parts.push(outpoint(input), Uint8Array.of(0x00), u32(sequenceOf(input)));
  parts.push(compactSize(tx.outputs.length), ...tx.outputs.map(serializeOutput));
  if (segwit) {
    for (const input of tx.inputs) {
      const stack = input.witness ?? [];
      parts.push(compactSize(stack.length), ...stack.flatMap((item) => [compactSize(item.length), item]));
    }
  }
  parts.push(u32(tx.locktime));
  return concat(...parts);
}

/** The txid in display order (reversed double SHA-256 of the non-witness serialisation). */
export function txidOf(tx: BtcTransaction): string {
  return bytesToHex(sha256d(serializeTransaction(tx, false)).reverse());
}

/** Virtual size estimate of a P2WPKH-only transaction (BIP-141 weight / 4, rounded up): 11 + 68/input + 31/output. */
export function estimateP2wpkhVsize(inputs: number, outputs: number): number {
  return 11 + 68 * inputs + 31 * outputs;
}

function outpoint(input: BtcInput): Uint8Array {
  if (!/^[0-9a-f]{64}$/i.test(input.txid))
    throw new KeyError(`"txid" expected 64 hex characters, got ${JSON.stringify(input.txid)}`);
  return concat(hexToBytes(input.txid).reverse(), u32(input.vout));
}

function serializeOutput(output: BtcOutput): Uint8Array {
  return concat(u64(output.value), compactSize(output.script.length), output.script);
}

function sequenceOf(input: BtcInput): number {
  return input.sequence ?? 0xfffffffd;
}

function u32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n >>> 0, true);
  return out;
}

function u64(n: bigint): Uint8Array {
  if (n < 0n || n > 0xffffffffffffffffn) throw new KeyError(`value ${n} out of range`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n, true);
  return out;
}
