// Chain keys and the ML-DSA-65 identity from one BIP-39 seed; known answers for the
// standard BIP-39 test mnemonic; determinism of svcId (D-031); message signatures per chain (D-035).
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { mnemonicToAccount } from 'viem/accounts';
import { recoverMessageAddress } from 'viem';
import { createBase58check } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { hkdfSha256 } from '../../src/crypto/index.ts';
import {
  addressOf,
  bytesToHex,
  familyOfAddress,
  hexToBytes,
  IDENTITY_INFO,
  svcIdOf,
  tronAddressBytes,
} from '../../src/client/wallet/codec.ts';
import { deriveIdentity, signWithIdentity, verifyIdentitySignature } from '../../src/client/wallet/identity.ts';
import { deriveChainKey, derivationPath, mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import {
  recoverChainMessageSigner,
  signChainMessage,
  verifyChainMessage,
} from '../../src/client/wallet/sign-message.ts';
import { NetworkRegistry, chainIdHex } from '../../src/client/wallet/networks.ts';

import { TEST_MNEMONIC } from './support.ts';
const seed = mnemonicToSeed(TEST_MNEMONIC);

describe('chain keys of the BIP-39 test mnemonic (published values)', () => {
  it("Ethereum m/44'/60'/0'/0/0 is 0x9858EfFD232B4033E47d90003D41EC34EcaEda94", () => {
    const key = deriveChainKey(seed, 'evm', 0);
    expect(key.path).toBe("m/44'/60'/0'/0/0");
    expect(key.address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    // Independent derivation: viem's HD account for the same mnemonic and path.
    expect(mnemonicToAccount(TEST_MNEMONIC).address).toBe(key.address);
  });

  it("Bitcoin BIP-84 m/84'/0'/0'/0/0 is bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu (BIP-84 test vector)", () => {
    const key = deriveChainKey(seed, 'bitcoin', 0);
    expect(key.path).toBe("m/84'/0'/0'/0/0");
    expect(key.address).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(bytesToHex(key.publicKey)).toBe('0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c'); // BIP-84 "pubkey"
    expect(deriveChainKey(seed, 'bitcoin', 1).address).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'); // BIP-84 second receiving address
  });

  it("Tron m/44'/195'/0'/0/0 is TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH, cross-checked with an independent derivation", () => {
    const key = deriveChainKey(seed, 'tron', 0);
    expect(key.path).toBe("m/44'/195'/0'/0/0");
    expect(key.address).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(deriveChainKey(seed, 'tron', 1).address).toBe('TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK');
    // Independent: viem derives the EVM-style address at the Tron path; Tron is base58check(0x41 || those 20 bytes).
    // (viem types paths as m/44'/60'/...; the Tron path works the same at run time.)
    const viaViem = mnemonicToAccount(TEST_MNEMONIC, { path: "m/44'/195'/0'/0/0" as `m/44'/60'/${string}` }).address;
    expect(createBase58check(sha256).encode(Uint8Array.of(0x41, ...hexToBytes(viaViem)))).toBe(key.address);
    expect(bytesToHex(tronAddressBytes(key.address).subarray(1))).toBe(viaViem.slice(2).toLowerCase());
  });

  it("all EVM chains, the native chain and custom networks share m/44'/60'/0'/0/i", () => {
    const registry = new NetworkRegistry();
    const custom = registry.registerEvmNetwork({
      chainId: 31337,
      name: 'Local',
      symbol: 'ETH',
      rpcUrl: 'http://127.0.0.1:8545',
    });
    expect(custom).toMatchObject({ chainId: '31337', family: 'evm', custom: true });
    for (const id of ['1111111', '1', '42161', '10', '8453', '137', '56', '31337'])
      expect(registry.get(id).family).toBe('evm');
    expect(() => registry.registerEvmNetwork({ chainId: '1', name: 'x', symbol: 'ETH', rpcUrl: 'http://x' })).toThrow(
      /built-in/,
    );
    expect(() => registry.registerEvmNetwork({ chainId: '007', name: 'x', symbol: 'ETH', rpcUrl: 'http://x' })).toThrow(
      /leading zeros/,
    );
    expect(chainIdHex('1111111')).toBe('0x10f447');
    expect(derivationPath('tron', 7)).toBe("m/44'/195'/0'/0/7");
    expect(familyOfAddress('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe('tron');
  });
});

describe('ML-DSA-65 identity and svcId (D-031, D-119)', () => {
  it('the same seed always gives the same svcId, and it is the fingerprint of the public key', () => {
    const a = deriveIdentity(mnemonicToSeed(TEST_MNEMONIC));
    const b = deriveIdentity(mnemonicToSeed(` ${TEST_MNEMONIC.toUpperCase()} `));
    expect(a.svcId).toMatch(/^[0-9a-f]{16}$/);
    expect(b.svcId).toBe(a.svcId);
    expect(bytesToHex(b.publicKey)).toBe(bytesToHex(a.publicKey));
    expect(a.publicKey.length).toBe(1952);
    expect(svcIdOf(a.publicKey)).toBe(bytesToHex(sha3_256(a.publicKey).subarray(0, 8)));
    // A BIP-39 passphrase is a different seed, hence a different identity.
    expect(deriveIdentity(mnemonicToSeed(TEST_MNEMONIC, 'TREZOR')).svcId).not.toBe(a.svcId);
  });

  it('is reproduced by an independent implementation (OpenSSL HKDF + noble ML-DSA-65 keygen on ξ)', () => {
    const xi = hkdfSha256(seed, new Uint8Array(0), new TextEncoder().encode(IDENTITY_INFO), 32);
    const noble = ml_dsa65.keygen(xi);
    const ours = deriveIdentity(seed);
    expect(bytesToHex(noble.publicKey)).toBe(bytesToHex(ours.publicKey));
    expect(bytesToHex(ours.secretKey)).toBe(bytesToHex(xi));
    // Pinned, so that a change of the derivation cannot go unnoticed (it would change every user's svcId).
    expect(ours.svcId).toBe('780b9aefce695a5f');
  });

  it('signs pure ML-DSA-65 with an empty context (D-044)', () => {
    const identity = deriveIdentity(seed);
    const signature = signWithIdentity(identity, 'hello');
    expect(signature.length).toBe(3309);
    expect(verifyIdentitySignature(identity.publicKey, 'hello', signature)).toBe(true);
    expect(ml_dsa65.verify(signature, new TextEncoder().encode('hello'), identity.publicKey)).toBe(true);
    expect(verifyIdentitySignature(identity.publicKey, 'hellO', signature)).toBe(false);
  });
});

describe('chain message signatures for ecdsaSig (D-035)', () => {
  const message =
    'localhost:8444 wants you to sign in with your account:\nX\n\nNonce: 28ca10e3dde4d371f12a157437a754f5';

  it('EIP-191 personal_sign: viem recovers the signer', async () => {
    const key = deriveChainKey(seed, 'evm', 0);
    const sig = signChainMessage(key, message);
    expect(sig).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
    expect(await recoverMessageAddress({ message, signature: sig as `0x${string}` })).toBe(key.address);
    // viem's own signature is byte-identical (RFC 6979 nonces on both sides).
    expect(await mnemonicToAccount(TEST_MNEMONIC).signMessage({ message })).toBe(sig);
  });

  it('BIP-137 P2WPKH: 65-byte base64 with header 39..42 recovering the bc1q address', () => {
    const key = deriveChainKey(seed, 'bitcoin', 0);
    const sig = signChainMessage(key, message);
    expect(sig).toMatch(/^[A-Za-z0-9+/]{87}=$/);
    const header = Buffer.from(sig, 'base64')[0]!;
    expect(header).toBeGreaterThanOrEqual(39);
    expect(header).toBeLessThanOrEqual(42);
    expect(recoverChainMessageSigner('bitcoin', message, sig)).toBe(key.address);
  });

  it('TIP-191: r||s||v recovering the T address; other schemes and other messages do not verify', () => {
    const key = deriveChainKey(seed, 'tron', 0);
    const sig = signChainMessage(key, message);
    expect(verifyChainMessage('tron', key.address, message, sig)).toBe(true);
    expect(verifyChainMessage('tron', key.address, `${message}.`, sig)).toBe(false);
    // Read as EIP-191 the same bytes recover another key than the Tron key's own 0x form: the prefixes separate the schemes.
    expect(verifyChainMessage('evm', addressOf('evm', key.publicKey), message, sig)).toBe(false);
  });
});
