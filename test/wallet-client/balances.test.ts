// Balances per chain (src/client/wallet/balances.ts, D-177): the native chain through the reference stack's
// gateway over its real TLS; Bitcoin (Esplora) and Tron (TronGrid) are third-party services, so local HTTP
// servers answering in their documented shapes stand in for them. An unset, unreachable, slow or wrong
// source is `unavailable` with its reason, never a number.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minedTransaction } from '../../conformance/checks/explorer/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { formatUnits, readBalance } from '../../src/client/wallet/balances.ts';
import { NetworkRegistry } from '../../src/client/wallet/networks.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { TEST_MNEMONIC, tlsFetch } from './support.ts';

let target: Target;
let gateway: string;
let standIn: http.Server;
let standInUrl: string;
/** What the Esplora / TronGrid stand-in answers, per path. */
const answers = new Map<string, { status: number; body: string; delayMs?: number }>();

beforeAll(async () => {
  target = await sharedReferenceTarget();
  gateway = new URL('rpc', target.base).href;
  standIn = http.createServer((req, res) => {
    const answer = answers.get(`${req.method} ${req.url}`) ?? { status: 404, body: 'not found' };
    setTimeout(() => res.writeHead(answer.status).end(answer.body), answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  standIn?.closeAllConnections();
  await new Promise((resolve) => (standIn ? standIn.close(resolve) : resolve(undefined)));
});

describe('balances per chain', () => {
  it('the native balance is what the gateway reports, through Wallet.balance', async () => {
    const wallet = Wallet.fromMnemonic(TEST_MNEMONIC, { networks: new NetworkRegistry({ '1111111': gateway }) });
    const address = wallet.address('1111111');
    await minedTransaction(target, { to: address as `0x${string}`, value: 123_450_000_000_000_000n });
    const reading = await wallet.balance('1111111', 0, { fetch: tlsFetch(target.caCert!) });
    expect(reading).toEqual({
      chainId: '1111111',
      address,
      status: 'available',
      value: 123_450_000_000_000_000n,
      symbol: 'SVC',
      decimals: 18,
      source: new URL(gateway).origin,
    });
    expect(formatUnits(reading.status === 'available' ? reading.value : -1n, 18)).toBe('0.12345');
  }, 60_000);

  it('an endpoint that serves another chain is refused, not read', async () => {
    const ethereum = { ...new NetworkRegistry().get('1'), rpcUrl: gateway };
    const reading = await readBalance(ethereum, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', {
      fetch: tlsFetch(target.caCert!),
    });
    expect(reading).toMatchObject({ status: 'unavailable' });
    expect(reading.status === 'unavailable' && reading.reason).toMatch(/serves chain 1111111, not 1$/);
  }, 30_000);

  it('Bitcoin: confirmed funded minus spent outputs (Esplora GET /address/:a)', async () => {
    const wallet = Wallet.fromMnemonic(TEST_MNEMONIC, { networks: new NetworkRegistry({ bitcoin: standInUrl }) });
    const address = wallet.address('bitcoin');
    answers.set(`GET /address/${address}`, {
      status: 200,
      body: JSON.stringify({
        address,
        chain_stats: { funded_txo_count: 2, funded_txo_sum: 150_000, spent_txo_count: 1, spent_txo_sum: 40_000 },
        mempool_stats: { funded_txo_sum: 999, spent_txo_sum: 0 },
      }),
    });
    expect(await wallet.balance('bitcoin')).toMatchObject({ status: 'available', value: 110_000n, symbol: 'BTC' });
    answers.set(`GET /address/${address}`, { status: 200, body: '{"address":"x"}' });
    expect(await wallet.balance('bitcoin')).toMatchObject({ status: 'unavailable' });
  });

  it('Tron: getaccount balance in sun, and an account never activated holds nothing', async () => {
    const wallet = Wallet.fromMnemonic(TEST_MNEMONIC, { networks: new NetworkRegistry({ tron: standInUrl }) });
    answers.set('POST /wallet/getaccount', { status: 200, body: JSON.stringify({ balance: 2_500_000 }) });
    const reading = await wallet.balance('tron');
    expect(reading).toMatchObject({ status: 'available', value: 2_500_000n, symbol: 'TRX', decimals: 6 });
    expect(formatUnits(reading.status === 'available' ? reading.value : 0n, 6)).toBe('2.5');
    answers.set('POST /wallet/getaccount', { status: 200, body: '{}' });
    expect(await wallet.balance('tron')).toMatchObject({ status: 'available', value: 0n });
  });

  it('no endpoint, an error answer, no answer in time: unavailable with the reason', async () => {
    const none = await Wallet.fromMnemonic(TEST_MNEMONIC).balance('bitcoin');
    expect(none).toMatchObject({ status: 'unavailable', reason: 'no Bitcoin endpoint is configured' });
    expect('value' in none).toBe(false);

    const tron = { ...new NetworkRegistry().get('tron'), rpcUrl: standInUrl };
    answers.set('POST /wallet/getaccount', { status: 503, body: 'down' });
    expect(await readBalance(tron, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toMatchObject({
      status: 'unavailable',
      reason: `${standInUrl} is unreachable: HTTP 503`,
    });
    answers.set('POST /wallet/getaccount', { status: 200, body: '{"balance":1}', delayMs: 1_000 });
    expect(await readBalance(tron, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', { timeoutMs: 100 })).toMatchObject({
      status: 'unavailable',
      reason: `${standInUrl} is unreachable: no answer in 100 ms`,
    });
    const closed = { ...new NetworkRegistry().get('1'), rpcUrl: 'http://127.0.0.1:9/' };
    expect(await readBalance(closed, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94')).toMatchObject({
      status: 'unavailable',
    });
  });

  it('formatUnits writes base units as a decimal without trailing zeros', () => {
    expect(formatUnits(0n, 18)).toBe('0');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(1_500_000_000_000_000_000n, 18)).toBe('1.5');
    expect(formatUnits(100_000_000n, 8)).toBe('1');
    expect(formatUnits(-250n, 2)).toBe('-2.5');
  });
});
