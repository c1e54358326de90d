/**
 * D-159, D-160: every code the server throws is listed in the contract of each REST API that can answer it
 * and has a status in the edge table; the error handler answers each with that status in `{error, code}`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ErrorSchema as AdminErrorSchema } from '../../generated/admin/schemas.gen.ts';
import { ErrorSchema as ExplorerErrorSchema } from '../../generated/explorer/schemas.gen.ts';
import { ErrorSchema as InstitutionalErrorSchema } from '../../generated/institutional/schemas.gen.ts';
import { ErrorSchema as WalletSessionErrorSchema } from '../../generated/wallet/schemas.gen.ts';
import { LedgerError, LedgerErrorCode } from '../../src/ledger/errors.ts';
import { HTTP_STATUS } from '../../src/server/http/error-codes.ts';
import { installErrorHandling } from '../../src/server/http/error-handler.ts';
import { ErrorCode, RestError } from '../../src/server/http/errors.ts';

const contract = {
  institutional: InstitutionalErrorSchema.properties.code.enum,
  explorer: ExplorerErrorSchema.properties.code.enum,
  wallet: WalletSessionErrorSchema.properties.code.enum,
  admin: AdminErrorSchema.properties.code.enum,
} satisfies Record<string, readonly string[]>;
type Surface = keyof typeof contract;
const ALL: Surface[] = ['institutional', 'explorer', 'wallet', 'admin'];

/** The REST APIs whose requests reach the code of each source folder or file (most specific first). */
const REACHES: [string, Surface[]][] = [
  ['src/server/admin/auth.ts', ['admin', 'wallet']], // requireAdmin also guards the wallet's owner registration
  ['src/server/admin', ['admin']],
  ['src/server/institutional', ['institutional']],
  ['src/server/auth', ['institutional']],
  ['src/server/wallet', ['wallet']],
  ['src/server/explorer', ['explorer']],
  ['src/server/http', ALL],
  ['src/server/chain/ws', []], // the /ws upgrade, the evidence site and the docs pages have no REST contract (D-160)
  ['src/server/evidence', []],
  ['src/server/docs', []],
  ['src/server/console', []], // the administrator console page (D-271) has no REST contract either
  ['src/server/metrics', []], // GET /metrics is in no contract (D-276); its 401 is the {error, code} shape
  ['src/server/tls/classical-rpc.ts', []], // the classical listener serves only /rpc and /ws; other paths 404 (D-259)
  ['src/server/app.ts', ALL],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Every `ErrorCode.X` and `LedgerErrorCode.X` a source file uses. */
function codesUsed(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/\b(?:ErrorCode|LedgerErrorCode)\.([A-Z][A-Z0-9_]*)\b/g)].map(
    (m) => m[1]!,
  );
}

const inContract = (surface: Surface, code: string) => (contract[surface] as readonly string[]).includes(code);

/** Codes about a request body: the explorer has only GET operations, whose bodies Fastify never reads. */
const BODY_CODES = ['BODY_TOO_DEEP', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
const answers = (surface: Surface, code: string) => !(surface === 'explorer' && BODY_CODES.includes(code));

describe('error codes (D-159, D-160)', () => {
  it('every code thrown under src/server is in the edge table and in the contract of each API that reaches it', () => {
    const missing: string[] = [];
    // JSON-RPC has its own codes (chain.openrpc.json); error-codes.ts is the table itself.
    const server = files('src/server').filter(
      (f) => !f.startsWith('src/server/chain/') && f !== 'src/server/http/error-codes.ts',
    );
    for (const file of server) {
      const used = codesUsed(file);
      if (used.length === 0) continue;
      const reach = REACHES.find(([prefix]) => file === prefix || file.startsWith(`${prefix}/`));
      if (!reach) {
        missing.push(`${file}: throws ${used.join(', ')} but is not mapped to a REST API in this test`);
        continue;
      }
      for (const code of used) {
        if (!(code in HTTP_STATUS)) missing.push(`${file}: ${code} has no status in error-codes.ts`);
        for (const surface of reach[1])
          if (answers(surface, code) && !inContract(surface, code))
            missing.push(`${file}: ${code} is not in the ${surface} contract`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every ledger code is in the edge table and in the institutional or admin contract', () => {
    const used = new Set(files('src/ledger').flatMap(codesUsed));
    expect([...used].filter((code) => !(code in LedgerErrorCode))).toEqual([]);
    for (const code of Object.values(LedgerErrorCode)) {
      expect(HTTP_STATUS, code).toHaveProperty(code);
      expect(inContract('institutional', code) || inContract('admin', code), code).toBe(true);
    }
  });

  it('every code a contract lists has a status, and the table has no code that no contract or origin answers', () => {
    const listed = new Set(ALL.flatMap((surface) => contract[surface] as readonly string[]));
    for (const code of listed) expect(HTTP_STATUS, code).toHaveProperty(code);
    const origin = ['TOO_MANY_CONNECTIONS', 'EVIDENCE_NOT_BUILT', 'EVIDENCE_INVALID', 'DOCS_NOT_BUILT'];
    expect(Object.keys(HTTP_STATUS).filter((code) => !listed.has(code) && !origin.includes(code))).toEqual([]);
  });

  it('the error handler answers each coded error with the status of the table and {error, code}', async () => {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/rest/:code', async (request) => {
      throw new RestError((request.params as { code: ErrorCode }).code, 'detail');
    });
    app.get('/body-device', async () => {
      throw new RestError(ErrorCode.DEVICE_NOT_FOUND, '"fromDevice" unknown', { details: { field: 'fromDevice' } });
    });
    app.get('/ledger', async () => {
      throw new LedgerError(LedgerErrorCode.RETURN_FAILED, 'the return transaction ended reverted');
    });
    app.get('/defect', async () => {
      throw new Error('a defect with a secret');
    });
    try {
      for (const [code, status] of Object.entries(HTTP_STATUS)) {
        const res = await app.inject({ url: `/rest/${code}` });
        expect([res.statusCode, res.json()], code).toEqual([status, { error: 'detail', code }]);
      }
      const body = await app.inject({ url: '/body-device' });
      expect([body.statusCode, body.json()]).toEqual([
        400,
        { error: '"fromDevice" unknown', code: 'DEVICE_NOT_FOUND' },
      ]);
      const ledger = await app.inject({ url: '/ledger' });
      expect([ledger.statusCode, ledger.json()]).toEqual([
        500,
        { error: 'the return transaction ended reverted', code: 'RETURN_FAILED' },
      ]);
      const defect = await app.inject({ url: '/defect' });
      expect([defect.statusCode, defect.json()]).toEqual([500, { error: 'internal error', code: 'INTERNAL' }]);
    } finally {
      await app.close();
    }
  });
});
