// The execution-apis rpc-compat fixtures (test/chain/fixtures/execution-apis, provenance in its README) whose
// answers do not depend on hive's chain, sent to the gateway on real Anvil over real TLS. An error fixture
// passes on the same JSON-RPC code (each client words its messages differently); a result fixture on the same
// result, except where REWRITES or SHAPES below say otherwise, each with its reason.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startGateway, type Gateway, type RpcAnswer } from './support.ts';

const DIR = path.join(import.meta.dirname, 'fixtures', 'execution-apis');
const files = readdirSync(DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.io'))
  .sort();

/** Expectations that name hive's chain, rewritten to the spec's values (spec: "Chain ID is 1111111"). */
const REWRITES: Record<string, unknown> = {
  'eth_chainId/get-chain-id.io': '0x10f447',
  'net_version/get-network-id.io': '1111111',
};

let gw: Gateway;
/** Checks on answers whose value depends on the chain: their shape, or agreement with the gateway's head. */
const SHAPES: Record<string, (answer: RpcAnswer) => Promise<void>> = {
  'eth_blockNumber/simple-test.io': async (answer) => expect(answer.result).toMatch(/^0x(0|[1-9a-f][0-9a-f]*)$/),
  // D-131: QBFT blocks are final once sealed, so finalized and safe are the latest block.
  'eth_getBlockByNumber/get-finalized.io': async (answer) =>
    expect((answer.result as { hash: string }).hash).toBe(await latestHash()),
  'eth_getBlockByNumber/get-safe.io': async (answer) =>
    expect((answer.result as { hash: string }).hash).toBe(await latestHash()),
};
const latestHash = async () =>
  (
    (await post(gw.rpc, { jsonrpc: '2.0', id: 9, method: 'eth_getBlockByNumber', params: ['latest', false] }))
      .result as { hash: string }
  ).hash;

/** The request and the expected answer of an .io file (`>> request`, `<< response`, `//` comments). */
function readFixture(file: string): { request: unknown; expected: RpcAnswer } {
  const lines = readFileSync(path.join(DIR, file), 'utf8').split('\n');
  const request = lines.find((l) => l.startsWith('>> '));
  const response = lines.find((l) => l.startsWith('<< '));
  return { request: JSON.parse(request!.slice(3)), expected: JSON.parse(response!.slice(3)) as RpcAnswer };
}

beforeAll(async () => {
  gw = await startGateway();
  await gw.stack.chain.producer!.requestBlock();
});
afterAll(async () => {
  await gw?.close();
});

describe('execution-apis rpc-compat fixtures against the gateway', () => {
  it('are the files SHA256SUMS lists, unchanged', () => {
    const sums = readFileSync(path.join(DIR, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));
    expect(sums.map(([, name]) => name).sort()).toEqual(files);
    for (const [sum, name] of sums)
      expect(
        createHash('sha256')
          .update(readFileSync(path.join(DIR, name!)))
          .digest('hex'),
        name,
      ).toBe(sum);
  });

  it.each(files)('%s', async (file) => {
    const { request, expected } = readFixture(file);
    // hive's head is 0x36: the fixture's "future" block must be past this chain's head too.
    if (file === 'eth_getBlockReceipts/get-block-receipts-future.io')
      expect(
        BigInt((await post(gw.rpc, { jsonrpc: '2.0', id: 9, method: 'eth_blockNumber', params: [] })).result as string),
      ).toBeLessThan(0x37n);
    const answer = await post(gw.rpc, request);
    expect(answer.id).toEqual(expected.id);
    if (expected.error) {
      expect(answer.error?.code, JSON.stringify(answer)).toBe(expected.error.code);
      expect(answer.result).toBeUndefined();
    } else if (SHAPES[file]) {
      expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
      await SHAPES[file](answer);
    } else {
      expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
      expect(answer.result).toEqual(file in REWRITES ? REWRITES[file] : expected.result);
    }
  });
});
