// Rule 9: the client applies the fee, signs on the client and broadcasts to each chain's RPC. EVM against a
// real Anvil node; Bitcoin and Tron against in-test doubles of their HTTP APIs (no network), with the
// transaction encodings pinned by published vectors (BIP-143; a Tron transfer signed by the test mnemonic).
import net from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { Instance } from 'prool';
import { createPublicClient, http, parseTransaction, recoverTransactionAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilBinary } from '../../src/node/anvil.ts';
import {
  bip143Sighash,
  p2wpkhScriptCode,
  P2WPKH_DUST,
  serializeTransaction,
  type BtcTransaction,
} from '../../src/client/wallet/bitcoin-tx.ts';
import type { FeeConfig } from '../../src/client/wallet/fees.ts';
import { bytesToHex, hexToBytes, tronAddress } from '../../src/client/wallet/codec.ts';
import { deriveChainKey, mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import { sendBitcoin } from '../../src/client/wallet/send-bitcoin.ts';
import { sendEvm } from '../../src/client/wallet/send-evm.ts';
import { sendTron } from '../../src/client/wallet/send-tron.ts';
import { encodeTransferRaw, signTronRaw } from '../../src/client/wallet/tron-tx.ts';
import { createClient } from '../../generated/wallet/client/index.ts';
import { NetworkRegistry } from '../../src/client/wallet/networks.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { TEST_MNEMONIC } from './support.ts';

const seed = mnemonicToSeed(TEST_MNEMONIC);
const COLLECTOR_EVM = '0xD53f8F6E3226491662029902a9b789f0DFE6a80A';
const fees: FeeConfig = {
  feeBps: 25,
  collectors: [
    { chainId: '1111111', address: COLLECTOR_EVM },
    { chainId: 'bitcoin', address: 'bc1qj6merx0m5pvjdv6r60m39dlmeregzrsrz7ppsp' },
    { chainId: 'tron', address: 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwE' },
  ],
  updatedAt: '2026-11-20T16:00:00.000Z',
};

describe('transaction encodings against published vectors', () => {
  it('BIP-143 native P2WPKH example: signature hash and RFC 6979 signature', () => {
    const tx: BtcTransaction = {
      version: 1,
      inputs: [
        {
          txid: bytesToHex(hexToBytes('fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f').reverse()),
          vout: 0,
          value: 625_000_000n,
          sequence: 0xffffffee,
        },
        {
          txid: bytesToHex(hexToBytes('ef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a').reverse()),
          vout: 1,
          value: 600_000_000n,
          sequence: 0xffffffff,
        },
      ],
      outputs: [
        { value: 112_340_000n, script: hexToBytes('76a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac') },
        { value: 223_450_000n, script: hexToBytes('76a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac') },
      ],
      locktime: 17,
    };
    expect(bytesToHex(serializeTransaction(tx))).toBe(
      '0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000',
    );
    const privateKey = hexToBytes('619c335025c7f4012e556c2a58b2506e30b8511b53ade95ea316fd8c3286feb9');
    const publicKey = secp256k1.getPublicKey(privateKey, true);
    expect(bytesToHex(publicKey)).toBe('025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357');
    const sighash = bip143Sighash(tx, 1, p2wpkhScriptCode(publicKey), 600_000_000n);
    expect(bytesToHex(sighash)).toBe('c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670');
    expect(bytesToHex(secp256k1.sign(sighash, privateKey, { prehash: false, format: 'der' }))).toBe(
      '304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee',
    );
  });

  it("Tron TransferContract: raw_data and signature of an independent wallet library's vector", () => {
    // Vector: a 10-sun transfer signed with m/44'/195'/0'/0/0 of the test mnemonic (published in a Go wallet
    // library's test suite; their signature ends with recid 01, TronWeb's convention is 27 + recid = 1c).
    const varint = (hex: string) => hexToBytes(hex).reduce((v, b, i) => v | (BigInt(b & 0x7f) << BigInt(7 * i)), 0n);
    const addr = (hex: string) => createBase58check(sha256).encode(hexToBytes(hex));
    const raw = encodeTransferRaw({
      from: addr('41e825d52582eec346c839b4875376117904a76cbc'),
      to: addr('4120ab1300cf70c048e4cf5d5b1b33f59653ed6626'),
      amount: 10n,
      refBlock: { number: 0x487cn, blockId: `00000000000000000608af18f6ec6c83${'00'.repeat(16)}` },
      expiration: varint('d8f8fae2e031'),
      timestamp: varint('8fb1f7e2e031'),
    });
    const signed = signTronRaw(raw, deriveChainKey(seed, 'tron', 0).privateKey);
    expect(signed.rawDataHex).toBe(
      '0a02487c22080608af18f6ec6c8340d8f8fae2e0315a65080112610a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412300a1541e825d52582eec346c839b4875376117904a76cbc12154120ab1300cf70c048e4cf5d5b1b33f59653ed6626180a708fb1f7e2e031',
    );
    expect(signed.signature).toBe(
      'e8469947140bdaff5cce4000e60a3bd95ca3de551870a450ce51ab41acfefe8b009e7ca1caaad63efdae94332f6282ef8766471236849511e70d7b1c22c15f7b1c',
    );
    expect(signed.transactionHex.startsWith('0a83010a02487c')).toBe(true);
  });
});

describe('EVM send on a real node (Anvil, chain 1111111)', () => {
  let anvil: ReturnType<typeof Instance.anvil>;
  let rpcUrl: string;
  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    anvil = Instance.anvil({ binary: anvilBinary(), host: '127.0.0.1', port, chainId: 1111111 } as Parameters<
      typeof Instance.anvil
    >[0]);
    await anvil.start();
    rpcUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('pays the recipient the amount and the collector the fee, both signed by the sender', async () => {
    const key = deriveChainKey(seed, 'evm', 0);
    const client = createPublicClient({ transport: http(rpcUrl) });
    await client.request({ method: 'anvil_setBalance' as never, params: [key.address, '0x8ac7230489e80000'] as never }); // 10 ETH
    const to = '0x000000000000000000000000000000000000dEaD';
    const amount = 1_000_000_000_000_000_001n;
    const result = await sendEvm({ chainId: '1111111', rpcUrl, key, to, amount, fees });
    expect(result.quote.fee).toBe(2_500_000_000_000_001n); // ceil(amount * 25 / 10000)
    expect(result.transactions.map((t) => t.role)).toEqual(['transfer', 'fee']);
    expect(result.broadcast).toEqual(result.transactions.map((t) => t.hash));
    for (const tx of result.transactions) {
      expect(await recoverTransactionAddress({ serializedTransaction: tx.raw as never })).toBe(key.address);
      expect(parseTransaction(tx.raw).chainId).toBe(1111111);
      expect((await client.waitForTransactionReceipt({ hash: tx.hash })).status).toBe('success');
    }
    expect(await client.getBalance({ address: to })).toBe(amount);
    expect(await client.getBalance({ address: COLLECTOR_EVM })).toBe(result.quote.fee);
  });

  it('Wallet.send reads GET /fees/config through the generated client right before signing', async () => {
    const wallet = Wallet.fromMnemonic(TEST_MNEMONIC, { networks: new NetworkRegistry({ '1111111': rpcUrl }) });
    await createPublicClient({ transport: http(rpcUrl) }).request({
      method: 'anvil_setBalance' as never,
      params: [wallet.address('1111111'), '0x8ac7230489e80000'] as never,
    });
    let feeReads = 0;
    const client = createClient({
      baseUrl: 'https://wallet.test',
      fetch: (async () => {
        feeReads++;
        return Response.json({ ...fees, feeBps: 100 });
      }) as unknown as typeof fetch,
    });
    const result = (await wallet.send({
      chainId: '1111111',
      to: COLLECTOR_EVM,
      amount: 1_000n,
      client,
      dryRun: true,
    })) as Awaited<ReturnType<typeof sendEvm>>;
    expect(feeReads).toBe(1);
    expect(result.quote).toMatchObject({ feeBps: 100, fee: 10n, total: 1_010n });
    expect(result.broadcast).toEqual([]); // dry run: signed, not sent
  });

  it('refuses to sign for a node of another chain, or beyond the balance', async () => {
    const key = deriveChainKey(seed, 'evm', 5);
    await expect(
      sendEvm({
        chainId: '1',
        rpcUrl,
        key,
        to: COLLECTOR_EVM,
        amount: 1n,
        fees: { ...fees, collectors: [{ chainId: '1', address: COLLECTOR_EVM }] },
      }),
    ).rejects.toThrow(/serves chain 1111111, not 1/);
    await expect(sendEvm({ chainId: '1111111', rpcUrl, key, to: COLLECTOR_EVM, amount: 1n, fees })).rejects.toThrow(
      /nothing signed/,
    );
  });
});

/** A fetch double that answers by "METHOD path" and records the requests. */
function fakeApi(routes: Record<string, (body: string) => unknown>) {
  const seen: Array<{ route: string; body: string }> = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const route = `${init?.method ?? 'GET'} ${url.pathname}`;
    const body = String(init?.body ?? '');
    seen.push({ route, body });
    const handler = routes[route];
    if (!handler) return new Response('not found', { status: 404 });
    const answer = handler(body);
    return typeof answer === 'string' ? new Response(answer) : Response.json(answer);
  }) as typeof fetch;
  return { fetchFn, seen };
}

describe('Bitcoin send (Esplora double)', () => {
  it('adds the fee output, returns change, signs every input (BIP-143) and broadcasts', async () => {
    const key = deriveChainKey(seed, 'bitcoin', 0);
    const utxos = [
      { txid: 'aa'.repeat(32), vout: 1, value: 150_000, status: { confirmed: true } },
      { txid: 'bb'.repeat(32), vout: 0, value: 80_000, status: { confirmed: true } },
      { txid: 'cc'.repeat(32), vout: 0, value: 999_999, status: { confirmed: false } },
    ];
    let pushed = '';
    const api = fakeApi({
      [`GET /api/address/${key.address}/utxo`]: () => utxos,
      'GET /api/fee-estimates': () => ({ '1': 20.5, '6': 4.2 }),
      'POST /api/tx': (hex) => {
        pushed = hex;
        return result.txid;
      },
    });
    // A dry run first gives the txid the double answers with: signing is deterministic (RFC 6979).
    let result = await sendBitcoin({
      apiUrl: 'https://esplora.test/api',
      key,
      to: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
      amount: 200_000n,
      fees,
      fetch: api.fetchFn,
      dryRun: true,
    });
    result = await sendBitcoin({
      apiUrl: 'https://esplora.test/api',
      key,
      to: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
      amount: 200_000n,
      fees,
      fetch: api.fetchFn,
    });
    expect(pushed).toBe(result.hex);
    expect(result.quote.fee).toBe(500n); // 0.25 % of 200,000 sat
    expect(result.networkFee).toBe(5n * BigInt(result.vsize)); // ceil(4.2) sat/vB, unconfirmed output left alone
    const tx = hexToBytes(result.hex);
    expect(bytesToHex(tx.subarray(4, 6))).toBe('0001'); // segwit marker and flag
    expect(result.hex).toContain(`${'400d030000000000'}160014`); // 200,000 sat to a P2WPKH script
    expect(result.hex).toContain(`${'f401000000000000'}160014`); // the 500-sat fee output
    const changeValue = 230_000n - 200_000n - 500n - result.networkFee;
    expect(result.hex).toContain(bytesToHex(new Uint8Array(new BigUint64Array([changeValue]).buffer)));
    expect(changeValue).toBeGreaterThan(P2WPKH_DUST);
  });

  it('refuses a fee output below dust, and too little money', async () => {
    const key = deriveChainKey(seed, 'bitcoin', 0);
    const api = fakeApi({
      [`GET /api/address/${key.address}/utxo`]: () => [{ txid: 'aa'.repeat(32), vout: 0, value: 1_000 }],
      'GET /api/fee-estimates': () => ({ '6': 1 }),
    });
    await expect(
      sendBitcoin({
        apiUrl: 'https://esplora.test/api',
        key,
        to: key.address,
        amount: 10_000n,
        fees,
        fetch: api.fetchFn,
      }),
    ).rejects.toThrow(/below the dust limit/);
    await expect(
      sendBitcoin({
        apiUrl: 'https://esplora.test/api',
        key,
        to: key.address,
        amount: 500_000n,
        fees,
        fetch: api.fetchFn,
      }),
    ).rejects.toThrow(/not enough/);
  });
});

describe('Tron send (TronGrid double)', () => {
  it('signs the transfer and the fee against the head block and broadcasts both', async () => {
    const key = deriveChainKey(seed, 'tron', 0);
    const api = fakeApi({
      'POST /wallet/getnowblock': () => ({
        blockID: `0000000003a6d0c5${'9f'.repeat(24)}`,
        block_header: { raw_data: { number: 61_264_069, timestamp: 1_795_253_400_000 } },
      }),
      'POST /wallet/broadcasthex': () => ({ result: true }),
    });
    const result = await sendTron({
      apiUrl: 'https://tron.test',
      key,
      to: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
      amount: 2_000_000n,
      fees,
      fetch: api.fetchFn,
    });
    expect(result.quote.fee).toBe(5_000n);
    expect(result.transactions.map((t) => t.role)).toEqual(['transfer', 'fee']);
    expect(
      api.seen.filter((s) => s.route === 'POST /wallet/broadcasthex').map((s) => JSON.parse(s.body).transaction),
    ).toEqual(result.transactions.map((t) => t.transactionHex));
    for (const tx of result.transactions) {
      expect(tx.rawDataHex.startsWith('0a02d0c5')).toBe(true); // ref_block_bytes: the height's last two bytes
      const sig = hexToBytes(tx.signature);
      const pub = secp256k1.recoverPublicKey(
        Uint8Array.of(sig[64]! - 27, ...sig.subarray(0, 64)),
        hexToBytes(tx.txID),
        { prehash: false },
      );
      expect(tronAddress(pub)).toBe(key.address);
      expect(bytesToHex(sha256(hexToBytes(tx.rawDataHex)))).toBe(tx.txID);
    }
  });
});
