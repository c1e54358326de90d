/**
 * Tron TRX transfers built and signed on the client (rule 9). The protobuf `Transaction.raw` is encoded here
 * rather than taken from a node, so the client signs exactly what it means to send (java-tron
 * core/Tron.proto, core/contract/balance_contract.proto):
 *   raw { ref_block_bytes = 1; ref_block_hash = 4; expiration = 8; contract = 11; timestamp = 14; }
 *   Contract { type = 1 (TransferContract = 1); parameter = 2 (google.protobuf.Any) }
 *   Any { type_url = 1 "type.googleapis.com/protocol.TransferContract"; value = 2 }
 *   TransferContract { owner_address = 1; to_address = 2; amount = 3 }   (addresses 21 bytes, 0x41 || 20)
 *   txID = SHA-256(raw); signature = r || s || v over txID (v = 27 + recid, as TronWeb); Transaction { raw_data = 1; signature = 2 }
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, KeyError, tronAddressBytes } from './codec.ts';
import { concat } from './sign-message.ts';

/** The reference block a transaction names (TAPOS): the block's number and id. */
export interface TronRefBlock {
  /** Block height. */
  number: bigint;
  /** 32-byte block id, hex. */
  blockId: string;
}

/** A TRX transfer to encode. */
export interface TronTransfer {
  from: string;
  to: string;
  /** Amount in sun (1 TRX = 10^6 sun). */
  amount: bigint;
  refBlock: TronRefBlock;
  /** Unix ms. */
  timestamp: bigint;
  /** Unix ms; java-tron accepts at most 24 h after the head block. */
  expiration: bigint;
}

/** A signed transfer. */
export interface SignedTronTransaction {
  txID: string;
  rawDataHex: string;
  signature: string;
  /** Protobuf `Transaction` hex, for /wallet/broadcasthex. */
  transactionHex: string;
}

const TRANSFER_TYPE_URL = 'type.googleapis.com/protocol.TransferContract';

/** Protobuf `Transaction.raw` bytes of a TRX transfer. */
export function encodeTransferRaw(t: TronTransfer): Uint8Array {
  if (t.amount <= 0n) throw new KeyError(`"amount" expected a positive number of sun, got ${t.amount}`);
  const blockId = hexToBytes(t.refBlock.blockId);
  if (blockId.length !== 32) throw new KeyError(`"blockId" expected 32 bytes, got ${blockId.length}`);
  const number = new Uint8Array(8);
  new DataView(number.buffer).setBigUint64(0, t.refBlock.number);
  const transfer = concat(
    field(1, tronAddressBytes(t.from)),
    field(2, tronAddressBytes(t.to)),
    varintField(3, t.amount),
  );
  const any = concat(field(1, new TextEncoder().encode(TRANSFER_TYPE_URL)), field(2, transfer));
  const contract = concat(varintField(1, 1n), field(2, any));
  return concat(
    field(1, number.subarray(6, 8)), // ref_block_bytes: bytes 6..8 of the height
    field(4, blockId.subarray(8, 16)), // ref_block_hash: bytes 8..16 of the block id
    varintField(8, t.expiration),
    field(11, contract),
    varintField(14, t.timestamp),
  );
}

/** Signs raw transaction bytes: txID = SHA-256(raw), r || s || v with v = 27 + recid. */
export function signTronRaw(raw: Uint8Array, privateKey: Uint8Array): SignedTronTransaction {
  const txID = sha256(raw);
  const recovered = secp256k1.sign(txID, privateKey, { prehash: false, lowS: true, format: 'recovered' });
  const signature = concat(recovered.subarray(1), Uint8Array.of(27 + recovered[0]!));
  return {
    txID: bytesToHex(txID),
    rawDataHex: bytesToHex(raw),
    signature: bytesToHex(signature),
    transactionHex: bytesToHex(concat(field(1, raw), field(2, signature))),
  };
}

function field(number: number, bytes: Uint8Array): Uint8Array {
  return concat(varint(BigInt((number << 3) | 2)), varint(BigInt(bytes.length)), bytes);
}

function varintField(number: number, value: bigint): Uint8Array {
  return concat(varint(BigInt(number << 3)), varint(value));
}

function varint(value: bigint): Uint8Array {
  if (value < 0n) throw new KeyError('negative varint');
  const out: number[] = [];
  let v = value;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Uint8Array.from(out);
}
