// GET /admin/v1/evidence (D-275): the evidence document's build time and verification, by the rules of
// `svckit evidence verify`, in the contract's EvidenceStatus shape: missing, verified, unverified when stale
// (D-045, 30 days), invalid with its violations listed up to 20 and all counted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { zAdminGetEvidenceStatusResponse } from '@svckit/sdk/admin/zod';
import { evidenceStatus, MAX_LISTED_VIOLATIONS } from '../../src/server/admin/evidence.ts';
import { repoPath } from '../../src/paths.ts';
import { readFileSync } from 'node:fs';

// The example document of the contract (specs/evidence.schema.json), a complete document that verifies.
const EXAMPLE = (JSON.parse(readFileSync(repoPath('specs/evidence.schema.json'), 'utf8')) as { examples: object[] })
  .examples[0] as { generated: string; packages: unknown[] } & Record<string, unknown>;
const DAY = 86_400_000;

const dirs: string[] = [];
function folder(document?: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-evidence-status-'));
  dirs.push(dir);
  if (document !== undefined) writeFileSync(path.join(dir, 'pqc-evidence.json'), document);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The status, checked against the contract's response schema. */
function status(dir: string, now: Date) {
  const answer = evidenceStatus(dir, now);
  expect(zAdminGetEvidenceStatusResponse.parse(answer)).toEqual(answer);
  return answer;
}

describe('the evidence status of GET /admin/v1/evidence', () => {
  const generated = Date.parse(EXAMPLE.generated);

  it('is missing before the document is built', () => {
    expect(status(folder(), new Date())).toEqual({
      status: 'missing',
      generated: null,
      ageDays: null,
      violationCount: 0,
      violations: [],
    });
  });

  it('is verified with its build time when the document passes every rule', () => {
    expect(status(folder(JSON.stringify(EXAMPLE)), new Date(generated + 2 * DAY))).toEqual({
      status: 'verified',
      generated: EXAMPLE.generated,
      ageDays: 2,
      violationCount: 0,
      violations: [],
    });
  });

  it('is unverified when older than 30 days, naming the staleness', () => {
    const answer = status(folder(JSON.stringify(EXAMPLE)), new Date(generated + 40 * DAY));
    expect(answer).toMatchObject({ status: 'unverified', ageDays: 40, violationCount: 1 });
    expect(answer.violations[0]).toMatchObject({ rule: 'generated.stale', path: '/generated' });
  });

  it('is invalid when a rule is broken or the file is not JSON; at most 20 violations are listed', () => {
    const broken = { ...EXAMPLE, packages: Array.from({ length: 30 }, () => ({ name: 1 })) };
    const answer = status(folder(JSON.stringify(broken)), new Date(generated + DAY));
    expect(answer.status).toBe('invalid');
    expect(answer.violationCount).toBeGreaterThan(MAX_LISTED_VIOLATIONS);
    expect(answer.violations).toHaveLength(MAX_LISTED_VIOLATIONS);
    const notJson = status(folder('{"generated": '), new Date());
    expect(notJson).toMatchObject({ status: 'invalid', generated: null, violationCount: 1 });
    expect(notJson.violations[0]!.message).toMatch(/^it is not JSON/);
  });
});
