// The edges of surface E that need no stack: private material refused anywhere in a body (spec rule 1),
// address checks (D-035, D-040), the D-035 signature schemes against independently made signatures, the
// challenge message layout (D-043), and the deterministic extension archive (a real ZIP that unzip accepts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bitcoinSigner, evmSigner, tronSigner } from '../../conformance/checks/wallet/support.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { canonicalAddress } from '../../src/server/wallet/addresses.ts';
import { challengeMessage } from '../../src/server/wallet/challenge.ts';
import { refusePrivateMaterial } from '../../src/server/wallet/private-material.ts';
import { verifyClassical } from '../../src/server/wallet/signatures.ts';
import { zip } from '../../src/server/wallet/zip.ts';

const refusal = (body: unknown) => {
  try {
    refusePrivateMaterial(body);
    return undefined;
  } catch (error) {
    return (error as RestError).code;
  }
};

describe('private material (spec rule 1)', () => {
  it('refuses fields named like private material, at any depth, and phrases or xprv values', () => {
    for (const body of [
      { mnemonic: 'x' },
      { privateKey: '0x11' },
      { private_key: '0x11' },
      { secretKey: 'ab' },
      { seedPhrase: 'x' },
      { keys: [{ chainId: '1', address: '0x', xprv: 'x' }] },
      { label: 'legal winner thank year wave sausage worth useful legal winner thank yellow' },
      {
        note: 'xprv9s21ZrQH143K3GJpoapnV8SFfukcVBSfeCficPSGfubmSFDxo1kuHnLisriDvSnRRuL2Qrg5ggqHKNVpxR86QEC8w35uxmGoggxtQTPvfUu',
      },
    ]) {
      expect(refusal(body), JSON.stringify(body)).toBe('PRIVATE_MATERIAL_REFUSED');
    }
  });

  it('lets public values through', () => {
    expect(
      refusal({
        svcId: '53354aa95a511425',
        pqPublicKey: 'ab'.repeat(1952),
        keys: [{ chainId: '1111111', address: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4' }],
      }),
    ).toBeUndefined();
    expect(refusal({ reference: 'order 1182 for two coffees' })).toBeUndefined();
  });
});

describe('addresses (D-035, D-040)', () => {
  it('canonicalises EVM addresses to EIP-55 and refuses a wrong mixed-case checksum', () => {
    expect(canonicalAddress('address', '0x5b38da6a701c568545dcfcb03fcb875f56beddc4').address).toBe(
      '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
    );
    expect(() => canonicalAddress('address', '0x5B38Da6a701c568545dCfcB03FcB875f56beddc4')).toThrow(/EIP-55/);
  });

  it('checks bech32 and base58check checksums, and the family a chain expects', () => {
    expect(canonicalAddress('address', 'bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrg').kind).toBe('bitcoin');
    expect(() => canonicalAddress('address', 'bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrh')).toThrow(RestError);
    expect(canonicalAddress('address', 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwE').kind).toBe('tron');
    expect(() => canonicalAddress('address', 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwF')).toThrow(RestError);
    expect(() => canonicalAddress('address', 'bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrg', ['evm'], '1')).toThrow(
      /for chainId 1/,
    );
  });
});

describe('classical signatures (D-035)', () => {
  it('verifies EIP-191, BIP-137 (P2WPKH) and TIP-191 signatures made independently, and only for their address', async () => {
    const message = 'localhost wants you to sign in with your account:\nNonce: 00';
    for (const [kind, signer, other] of [
      ['evm', evmSigner(), evmSigner()],
      ['bitcoin', bitcoinSigner(), bitcoinSigner()],
      ['tron', tronSigner(), tronSigner()],
    ] as const) {
      const sig = await signer.sign(message);
      expect(await verifyClassical(kind, signer.address, message, sig), kind).toBe(true);
      expect(await verifyClassical(kind, other.address, message, sig), `${kind} other address`).toBe(false);
      expect(await verifyClassical(kind, signer.address, `${message}.`, sig), `${kind} other message`).toBe(false);
    }
  });
});

describe('challenge message (D-043, D-071)', () => {
  it('is the EIP-4361 layout with a 5-minute expiry', () => {
    const message = challengeMessage({
      origin: 'https://localhost:8444',
      address: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
      chainId: '1111111',
      nonce: '28ca10e3dde4d371f12a157437a754f5',
      issuedAt: Date.UTC(2026, 10, 21, 9, 30),
      svcId: '53354aa95a511425',
    });
    expect(message).toBe(
      'localhost:8444 wants you to sign in with your account:\n0x5B38Da6a701c568545dCfcB03FcB875f56beddC4\n\nSign in to svckit wallet session.\n\nURI: https://localhost:8444\nVersion: 1\nChain ID: 1111111\nNonce: 28ca10e3dde4d371f12a157437a754f5\nIssued At: 2026-11-21T09:30:00.000Z\nExpiration Time: 2026-11-21T09:35:00.000Z\nResources:\n- svc:53354aa95a511425',
    );
  });
});

describe('extension archive', () => {
  it('is deterministic and a valid ZIP (unzip -t, when the system has it)', () => {
    const entries = [
      { name: 'manifest.json', data: new TextEncoder().encode('{"manifest_version":3}') },
      { name: 'scripts/inject.js', data: new TextEncoder().encode('// x\n'.repeat(200)) },
    ];
    const a = zip(entries);
    expect(Buffer.compare(a, zip([...entries].reverse()))).toBe(0);
    if (existsSync('/usr/bin/unzip')) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'svckit-zip-')), 'x.zip');
      writeFileSync(file, a);
      expect(execFileSync('/usr/bin/unzip', ['-t', file], { encoding: 'utf8' })).toMatch(/No errors detected/);
    }
  });
});
