// The explorer.validators.quorums_at_n* checks (D-037, D-173) move the reference stack's validator set
// through the admin votes. Against the reference they pass at n = 7, 6, 4 and 3 and leave the set as it
// was; against an explorer in front of it that computes faultTolerance as floor(n/3) they fail exactly
// where floor(n/3) and floor((n-1)/3) part (n = 3 and 6) and pass where they agree (n = 4 and 7).
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { explorerValidatorSizeChecks } from '../../conformance/checks/explorer/validator-sizes.ts';
import { request } from '../../conformance/http.ts';
import { type CheckResult, runChecks } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { httpsOptions } from '../../src/server/tls/tls-options.ts';

type Json = Record<string, unknown>;

let reference: Target;
let dir: string;
let server: https.Server;

/** The validator set at the head, as the node reports it. */
async function setAtHead(target: Target): Promise<string[]> {
  const rpc = (method: string, params: unknown[]) =>
    request(target, 'rpc', { body: { jsonrpc: '2.0', id: 1, method, params } }).then(
      (r) => (r.json as { result: unknown }).result,
    );
  const head = (await rpc('eth_blockNumber', [])) as string;
  return ((await rpc('qbft_getValidatorsByBlockNumber', [head])) as string[]).map((a) => a.toLowerCase()).sort();
}

/** Runs the four checks against `target`, keyed by id. */
async function run(target: Target): Promise<Map<string, CheckResult>> {
  const catalogue = new Catalogue();
  for (const check of explorerValidatorSizeChecks()) catalogue.register(check);
  return new Map((await runChecks(catalogue, target)).map((r) => [r.id, r]));
}

/** An explorer whose fault tolerance is floor(n/3): /api/validators and /api/governance bent, the rest passed on. */
async function floorNOver3(): Promise<Target> {
  dir = mkdtempSync(path.join(tmpdir(), 'svckit-floor-n3-'));
  const material = await ensureDevCertificates(dir, []);
  server = https.createServer(httpsOptions(material, false), (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', async () => {
      const answer = await request(reference, req.url!.slice(1), {
        method: req.method,
        ...(text ? { body: text } : {}),
        headers: {
          'content-type': 'application/json',
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
      });
      let body = answer.json as Json;
      if (answer.status === 200 && req.url === '/api/validators')
        body = { ...body, faultTolerance: Math.floor((body.totalValidators as number) / 3) };
      if (answer.status === 200 && req.url === '/api/governance') {
        const qbft = body.qbft as { n: number };
        body = { ...body, qbft: { ...qbft, f: Math.floor(qbft.n / 3) } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    kind: 'reference',
    base: new URL(`https://127.0.0.1:${port}/`),
    caCert: material.caCert,
    capabilities: new Set(['base', 'admin', 'reference']),
    adminToken: reference.adminToken,
    reference: { advanceClock: () => undefined, mineBlock: () => reference.reference!.mineBlock() },
  };
}

beforeAll(async () => {
  reference = await referenceTarget({ env: { SVC_VALIDATORS: '7' } });
}, 120_000);

afterAll(async () => {
  server?.close();
  await reference?.close?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('explorer.validators.quorums_at_n*', () => {
  it('pass on the reference stack at n = 7, 6, 4 and 3 and leave the set as it was', async () => {
    const before = await setAtHead(reference);
    expect(before).toHaveLength(7);
    const results = await run(reference);
    expect([...results.values()].map((r) => [r.id, r.status, r.reason])).toEqual(
      [7, 6, 4, 3].map((n) => [
        `explorer.validators.quorums_at_n${n}`,
        'passed',
        `quorums right at n = ${n}, voted from 7; the set is back to its 7 members`,
      ]),
    );
    expect(await setAtHead(reference)).toEqual(before);
  }, 300_000);

  it('fail an explorer computing faultTolerance as floor(n/3) at n = 6 and 3, where the formulas part', async () => {
    const results = await run(await floorNOver3());
    const status = (n: number) => results.get(`explorer.validators.quorums_at_n${n}`)?.status;
    expect([status(7), status(6), status(4), status(3)]).toEqual(['passed', 'failed', 'passed', 'failed']);
    expect(results.get('explorer.validators.quorums_at_n6')?.reason).toBe(
      'n = 6: faultTolerance 2, floor((n-1)/3) = 1; n = 6: qbft.f 2, floor((n-1)/3) = 1',
    );
    expect(results.get('explorer.validators.quorums_at_n3')?.reason).toBe(
      'n = 3: faultTolerance 1, floor((n-1)/3) = 0; n = 3: qbft.f 1, floor((n-1)/3) = 0',
    );
    expect(await setAtHead(reference)).toHaveLength(7);
  }, 300_000);
});

describe('explorer.validators.quorums_at_n* on the default set of four', () => {
  it('check n = 4 and 3 and skip n = 7 and 6 with the reason, never passing them', async () => {
    const four = await referenceTarget();
    try {
      const results = await run(four);
      const outcome = (n: number) => [
        results.get(`explorer.validators.quorums_at_n${n}`)?.status,
        results.get(`explorer.validators.quorums_at_n${n}`)?.reason,
      ];
      expect(outcome(7)).toEqual([
        'skipped',
        'the explorer knows 4 validators, fewer than 7 (the reference stack: SVC_VALIDATORS=7 or more)',
      ]);
      expect(outcome(6)?.[0]).toBe('skipped');
      expect(outcome(4)).toEqual(['passed', 'quorums right at n = 4, voted from 4; the set is back to its 4 members']);
      expect(outcome(3)).toEqual(['passed', 'quorums right at n = 3, voted from 4; the set is back to its 4 members']);
      expect(await setAtHead(four)).toHaveLength(4);
    } finally {
      await four.close?.();
    }
  }, 300_000);
});
