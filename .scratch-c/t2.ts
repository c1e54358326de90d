import { encodeTransferRaw, signTronRaw } from '/work/main/src/client/wallet/tron-tx.ts';
import { mnemonicToSeed, deriveChainKey, hexToBytes } from '/work/main/src/client/wallet/keys.ts';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
const b58 = createBase58check(sha256);
const dec = (hex: string) => { const b = hexToBytes(hex); let v = 0n, s = 0n; for (const x of b) { v |= BigInt(x & 0x7f) << s; s += 7n; } return v; };
const key = deriveChainKey(mnemonicToSeed('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'), 'tron', 0);
const raw = encodeTransferRaw({ from: b58.encode(hexToBytes('41e825d52582eec346c839b4875376117904a76cbc')), to: b58.encode(hexToBytes('4120ab1300cf70c048e4cf5d5b1b33f59653ed6626')), amount: 10n,
  refBlock: { number: 0x487cn, blockId: '0000000000000000' + '0608af18f6ec6c83' + '00'.repeat(16) }, expiration: dec('d8f8fae2e031'), timestamp: dec('8fb1f7e2e031') });
const s = signTronRaw(raw, key.privateKey);
console.log(s.rawDataHex); console.log( '0a02487c22080608af18f6ec6c8340d8f8fae2e0315a65080112610a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412300a1541e825d52582eec346c839b4875376117904a76cbc12154120ab1300cf70c048e4cf5d5b1b33f59653ed6626180a708fb1f7e2e031');
console.log(s.signature, s.transactionHex.slice(0,12));
