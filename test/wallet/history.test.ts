// GET /history for chains other than the native one comes from the RPC or indexer URLs configured for them,
// and a source that cannot be reached is named in the response as unavailable, never silently left out. The indexers are outside the project, so loopback stand-ins answer in Esplora, Etherscan and
// TronGrid shapes; the unreachable ones are loopback ports nothing listens on (no network). Also: the
// extension download answers 503 when nothing was built, and the fee configuration from the settings.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../conformance/targets/target.ts';
import { bitcoinSigner, call, login, tronSigner } from '../../conformance/checks/wallet/support.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { refusedUrl, startTarget } from './support.ts';

const btc = bitcoinSigner().address;
const btcOther = bitcoinSigner().address;
const trx = tronSigner().address;
const evm = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
const TX = (n: number) => n.toString(16).padStart(64, '0');

/** Loopback stand-ins for the three indexer APIs. */
function indexer(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === `/esplora/address/${btc}/txs`) {
      return json([
        {
          txid: TX(2),
          vin: [{ prevout: { scriptpubkey_address: btcOther, value: 90_000 } }],
          vout: [
            { scriptpubkey_address: btc, value: 50_000 },
            { scriptpubkey_address: btcOther, value: 39_000 },
          ],
          status: { confirmed: false },
        },
        {
          txid: TX(1),
          vin: [{ prevout: { scriptpubkey_address: btc, value: 100_000 } }],
          vout: [
            { scriptpubkey_address: btcOther, value: 70_000 },
            { scriptpubkey_address: btc, value: 29_000 },
          ],
          status: { confirmed: true, block_height: 870_000, block_time: 1_795_250_000 },
        },
      ]);
    }
    if (
      url.pathname === '/etherscan' &&
      url.searchParams.get('action') === 'txlist' &&
      url.searchParams.get('address') === evm
    ) {
      return json({
        status: '1',
        message: 'OK',
        result: [
          {
            hash: `0x${TX(3)}`,
            from: evm.toLowerCase(),
            to: '0xab8483f64d9c6d1ecf9b849ae677dd3315835cb2',
            value: '1000',
            blockNumber: '19000000',
            timeStamp: '1795250100',
            isError: '1',
            txreceipt_status: '0',
          },
        ],
      });
    }
    if (url.pathname === `/trongrid/v1/accounts/${trx}/transactions`) {
      return json({
        success: true,
        data: [
          {
            txID: TX(4),
            blockNumber: 60_000_000,
            block_timestamp: 1_795_250_200_000,
            ret: [{ contractRet: 'SUCCESS' }],
            raw_data: {
              contract: [
                {
                  type: 'TransferContract',
                  parameter: {
                    value: {
                      owner_address: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c',
                      to_address: `41${'00'.repeat(20)}`,
                      amount: 5_000_000,
                    },
                  },
                },
              ],
            },
          },
        ],
      });
    }
    res.writeHead(404).end();
  });
}

let target: Target;
let server: Server;
let token: string;
beforeAll(async () => {
  server = indexer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const refused = await refusedUrl();
  target = await startTarget({
    SVC_WALLET_EXTENSION_DIR: '/nonexistent/svckit-extension',
    SVC_WALLET_FEE_BPS: '30',
    SVC_WALLET_FEE_COLLECTORS: `bitcoin=${btcOther},tron=${trx}`,
    SVC_WALLET_HISTORY_SOURCES: JSON.stringify([
      { chainId: 'bitcoin', kind: 'esplora', url: `${base}/esplora`, name: 'esplora-local' },
      { chainId: 'bitcoin', kind: 'esplora', url: refused, name: 'mempool-space' },
      { chainId: 'tron', kind: 'trongrid', url: `${base}/trongrid`, name: 'trongrid-local' },
      { chainId: '1', kind: 'etherscan', url: `${base}/etherscan`, name: 'etherscan-local' },
      { chainId: '137', kind: 'etherscan', url: refused, name: 'polygonscan' },
    ]),
  });
  token = (await login(target)).token;
});
afterAll(async () => {
  await target?.close?.();
  await new Promise((resolve) => server?.close(resolve));
});

const history = async (chainId: string, address: string) => {
  const res = await call(target, 'GET', `/history?chainId=${chainId}&address=${address}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json as { items: Record<string, unknown>[]; sources: Record<string, unknown>[] };
};

describe('GET /history from configured sources', () => {
  it('Bitcoin: Esplora items mapped (pending first), and the unreachable source named unavailable', async () => {
    const body = await history('bitcoin', btc);
    expect(body.items).toEqual([
      {
        id: `bitcoin:${TX(2)}`,
        chainId: 'bitcoin',
        txHash: TX(2),
        from: btcOther,
        to: btc,
        value: '50000',
        asset: 'BTC',
        direction: 'in',
        status: 'pending',
        blockNumber: null,
        timestamp: null,
      },
      {
        id: `bitcoin:${TX(1)}`,
        chainId: 'bitcoin',
        txHash: TX(1),
        from: btc,
        to: btcOther,
        value: '70000',
        asset: 'BTC',
        direction: 'out',
        status: 'confirmed',
        blockNumber: 870_000,
        timestamp: 1_795_250_000,
      },
    ]);
    expect(body.sources).toEqual([
      { name: 'esplora-local', chainId: 'bitcoin', status: 'available' },
      {
        name: 'mempool-space',
        chainId: 'bitcoin',
        status: 'unavailable',
        error: 'mempool-space: connect ECONNREFUSED',
      },
    ]);
  });

  it('Ethereum (Etherscan txlist) and Tron (TronGrid) items carry D-067 values', async () => {
    const eth = await history('1', evm);
    expect(eth.items).toEqual([
      expect.objectContaining({
        chainId: '1',
        txHash: `0x${TX(3)}`,
        direction: 'out',
        status: 'failed',
        value: '1000',
        asset: 'ETH',
        to: '0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2',
      }),
    ]);
    const tron = await history('tron', trx);
    expect(tron.items).toEqual([
      expect.objectContaining({
        chainId: 'tron',
        txHash: TX(4),
        status: 'confirmed',
        value: '5000000',
        asset: 'TRX',
        blockNumber: 60_000_000,
        timestamp: 1_795_250_200,
      }),
    ]);
    expect(tron.sources).toEqual([{ name: 'trongrid-local', chainId: 'tron', status: 'available' }]);
  });

  it('a chain whose only source is unreachable answers 200 with no items and the source unavailable', async () => {
    const body = await history('137', evm);
    expect(body).toMatchObject({
      items: [],
      sources: [{ name: 'polygonscan', chainId: '137', status: 'unavailable' }],
    });
    expect(String(body.sources[0]!.error)).toMatch(/^polygonscan: connect ECONNREFUSED/);
  });

  it('an unconfigured chain is 400 UNSUPPORTED_CHAIN naming the configured ones', async () => {
    const res = await call(target, 'GET', `/history?chainId=42161&address=${evm}`, { token });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'UNSUPPORTED_CHAIN' });
    expect((res.json as { error: string }).error).toContain('1111111, bitcoin, tron, 1, 137');
  });
});

describe('settings at the edges', () => {
  it('GET /download/extension is 503 EXTENSION_NOT_BUILT when no extension was built (never a stand-in file)', async () => {
    const res = await call(target, 'GET', '/download/extension');
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ code: 'EXTENSION_NOT_BUILT' });
  });

  it('GET /fees/config gives the configured fee and collectors, plus the native chain default', async () => {
    const res = await call(target, 'GET', '/fees/config');
    const body = res.json as { feeBps: number; collectors: { chainId: string; address: string }[] };
    expect(body.feeBps).toBe(30);
    expect(body.collectors.map((c) => c.chainId)).toEqual(['bitcoin', 'tron', '1111111']);
  });

  it('bad wallet settings are a ConfigError naming the variable', () => {
    expect(() => loadConfig({ SVC_WALLET_FEE_BPS: '10001' })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_WALLET_FEE_COLLECTORS: `1111111=${btc}` })).toThrow(/SVC_WALLET_FEE_COLLECTORS\[0\]/);
    expect(() =>
      loadConfig({ SVC_WALLET_HISTORY_SOURCES: '[{"chainId":"bitcoin","kind":"etherscan","url":"http://x"}]' }),
    ).toThrow(/kind/);
    expect(() => loadConfig({ SVC_WALLET_HISTORY_SOURCES: 'nope' })).toThrow(/JSON array/);
    expect(loadConfig({}).wallet).toMatchObject({
      requestsPerSecond: 20,
      authRequestsPerSecond: 5,
      feeBps: 25,
      historySources: [],
    });
  });
});
