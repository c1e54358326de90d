// The explorer checks must fail an explorer that breaks the rules, not only pass a good one. The target
// here is a careless explorer in front of the reference stack: /rpc is passed through untouched, while
// /api answers are bent (a stale head, oldest-first blocks, hex ids read as numbers, 500 for unknown
// blocks, lower-case miners, every transaction "Success", rounded balances, any address case accepted,
// wrong validator counts and quorums) and its clock never moves, so the /txns cache never expires.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { explorerChecks } from '../../conformance/checks/explorer/index.ts';
import { request } from '../../conformance/http.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { httpsOptions } from '../../src/server/tls/tls-options.ts';

type Json = Record<string, unknown>;

/** Four decimals rounded half up: what a careless explorer does instead of truncating (D-033). */
function rounded(wei: bigint): string {
  const tenThousandths = (wei + 5n * 10n ** 13n) / 10n ** 14n;
  return `${tenThousandths / 10_000n}.${(tenThousandths % 10_000n).toString().padStart(4, '0')}`;
}

/** The careless explorer's answer to GET /api/<route>, built from the reference stack's. */
async function bent(reference: Target, route: string): Promise<{ status: number; body: unknown }> {
  const [, kind, param = ''] = /^\/api\/([a-z]+)(?:\/(.*))?$/.exec(route) ?? [];
  if (kind === 'block' && /^0x[0-9a-fA-F]{1,16}$/.test(param)) route = `/api/block/${Number(param)}`; // 0x10 read as 16
  if (kind === 'address') route = `/api/address/${param.toLowerCase()}`; // a wrong checksum goes unnoticed
  const res = await request(reference, route.slice(1));
  const body = res.json as Json & Json[];
  if (res.status === 404) return { status: 500, body: { error: 'internal error' } };
  if (res.status !== 200) return { status: res.status, body };
  switch (kind) {
    case 'stats':
      return {
        status: 200,
        body: { blockNumber: Math.max(0, (body.blockNumber as number) - 1), avgBlockTime: '2.00' },
      };
    case 'blocks':
      return { status: 200, body: [...body].reverse() };
    case 'block':
      return { status: 200, body: { ...body, miner: (body.miner as string).toLowerCase() } };
    case 'tx':
      return { status: 200, body: { ...body, status: 'Success' } };
    case 'address': {
      const params = [param.toLowerCase(), `0x${(body.blockNumber as number).toString(16)}`];
      const rpc = await request(reference, 'rpc', {
        body: { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params },
      });
      return { status: 200, body: { ...body, balance: rounded(BigInt((rpc.json as { result: string }).result)) } };
    }
    case 'validators':
      return {
        status: 200,
        body: {
          ...body,
          faultTolerance: (body.faultTolerance as number) + 1,
          validators: (body.validators as Json[]).map((v) => ({ ...v, blocksProposed: 12 })),
        },
      };
    case 'governance':
      return {
        status: 200,
        body: { ...body, qbft: { ...(body.qbft as Json), n: (body.validators as Json[]).length + 1 } },
      };
    default:
      return { status: 200, body };
  }
}

let reference: Target;
let dir: string;
let server: https.Server;
let results: Map<string, CheckResult>;

beforeAll(async () => {
  reference = await referenceTarget();
  for (let i = 0; i < 3; i++) await reference.reference!.mineBlock(); // past genesis, so a stale head shows
  dir = mkdtempSync(path.join(tmpdir(), 'svckit-bad-explorer-'));
  const material = await ensureDevCertificates(dir, []);
  server = https.createServer(httpsOptions(material, false), (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', async () => {
      // /rpc and the admin console pass through untouched: the harness allow-lists its sender there (D-152).
      const passed = req.url === '/rpc' || req.url?.startsWith('/admin/');
      const answer = passed
        ? await request(reference, req.url!.slice(1), {
            method: req.method,
            ...(text ? { body: text } : {}),
            headers: {
              'content-type': 'application/json',
              ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
            },
          }).then((r) => ({ status: r.status, body: r.json }))
        : await bent(reference, req.url ?? '/');
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const careless: Target = {
    kind: 'reference',
    base: new URL(`https://127.0.0.1:${port}/`),
    caCert: material.caCert,
    capabilities: new Set(['base', 'reference']),
    adminToken: reference.adminToken,
    // The careless explorer's clock stands still; blocks are still sealed on the real chain.
    reference: { advanceClock: () => undefined, mineBlock: () => reference.reference!.mineBlock() },
  };
  const catalogue = new Catalogue();
  for (const check of explorerChecks()) catalogue.register(check);
  results = new Map((await runChecks(catalogue, careless)).map((r) => [r.id, r]));
});
afterAll(async () => {
  server?.close();
  await reference?.close?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const status = (id: string) => results.get(id)?.status;
const reason = (id: string) => results.get(id)?.reason ?? '';

describe('the explorer checks against a careless explorer', () => {
  it('fail a stale head, a wrong average, oldest-first blocks and lower-case miners', () => {
    expect(reason('explorer.stats.agrees_with_rpc')).toMatch(/blockNumber \d+ is not the head/);
    expect(reason('explorer.stats.avg_block_time')).toMatch(/avgBlockTime 2\.00: blocks \d+\.\.\d+ give/);
    expect(reason('explorer.blocks.agrees_with_rpc')).toMatch(/the first block is \d+, not the head/);
    expect(reason('explorer.block.agrees_with_rpc')).toMatch(
      /\.miner: expected "0x[0-9a-fA-F]*[A-F][0-9a-fA-F]*", got "0x[0-9a-f]{40}"/,
    );
  });

  it('fail a hex id read as a number and a 500 for an unknown block', () => {
    expect(reason('explorer.block.bad_id_400')).toContain('GET /api/block/0x10: expected HTTP 400, got 200');
    expect(reason('explorer.block.unknown_404')).toMatch(/expected HTTP 404, got 500/);
  });

  it('fail a /txns cache that never expires', () => {
    for (const id of ['explorer.txns.recent_window', 'explorer.txns.scan_window', 'explorer.txns.cache_window'])
      expect(status(id), id).toBe('failed');
    expect(reason('explorer.txns.cache_window')).toMatch(/20\.1 s after the first answer the newest entry is/);
  });

  it('fail a Success status for reverted and pending transactions', () => {
    expect(reason('explorer.tx.status_values')).toMatch(/status: expected "Failed", got "Success"/);
    expect(reason('explorer.tx.status_values')).toMatch(/status: expected "Pending", got "Success"/);
  });

  it('fail rounded balances and a wrong checksum accepted', () => {
    expect(reason('explorer.address.four_decimals')).toContain('shows as "1.2346", expected "1.2345"');
    expect(reason('explorer.address.forms')).toMatch(/expected HTTP 400, got 200/);
  });

  it('fail wrong blocksProposed counts, quorums and validator count', () => {
    expect(reason('explorer.validators.agrees_with_rpc')).toMatch(/blocksProposed 12; it mined \d+ of blocks/);
    expect(reason('explorer.validators.quorums')).toMatch(/faultTolerance 2, floor\(\(4-1\)\/3\) = 1/);
    expect(reason('explorer.governance.agrees_with_rpc')).toMatch(
      /qbft\.n 5, qbft_getValidatorsByBlockNumber\(\d+\) has 4/,
    );
  });

  it('still pass what the careless explorer gets right, and skip nothing', () => {
    for (const id of [
      'explorer.stats.schema',
      'explorer.blocks.schema',
      'explorer.tx.bad_hash_400',
      'explorer.governance.schema',
    ])
      expect(status(id), `${id}: ${reason(id)}`).toBe('passed');
    expect([...results.values()].filter((r) => r.status === 'skipped')).toEqual([]);
  });
});
