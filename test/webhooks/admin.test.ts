// The webhook, delivery and payment-return operations of the admin API and POST /payments/pacs008, over real
// HTTPS, each answer checked against the status and schema the contract declares (D-019, D-047, D-053,
// D-056, D-060, D-062).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount } from '../../conformance/checks/institutional/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { admin, expectContract, eventually, wallet } from '../admin/support.ts';
import { REPO_ROOT } from '../../src/paths.ts';

let target: Target;
/** The accounts the endpoints of the first tests belong to (D-142). */
let owner: string[];
beforeAll(async () => {
  target = await referenceTarget();
  owner = [(await newAccount(target)).id];
});
afterAll(async () => {
  await target?.close?.();
});

const A = 'admin.openapi.yaml';
const I = 'institutional.openapi.yaml';
const URL_OK = 'https://hooks.bank-a.example/svckit';
const SECRET = 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU';

describe('webhook endpoints and secrets', () => {
  it('registers, reads, changes, rotates the secret of and deletes an endpoint', async () => {
    const created = await admin(target, 'POST', '/webhooks/endpoints', {
      url: URL_OK,
      accountIds: owner,
      description: 'Bank A',
    });
    await expectContract(A, 'POST /webhooks/endpoints', created, 201);
    const endpoint = created.json as {
      id: string;
      events: string[];
      accountIds: string[];
      hasSecret: boolean;
      previousSecretExpiresAt: string | null;
    };
    expect(endpoint.events).toHaveLength(5); // D-019: all five by default
    expect(endpoint.accountIds).toEqual(owner);
    expect(endpoint.hasSecret).toBe(false);
    await expectContract(A, 'GET /webhooks/endpoints', await admin(target, 'GET', '/webhooks/endpoints'), 200);
    await expectContract(
      A,
      'GET /webhooks/endpoints/{id}',
      await admin(target, 'GET', `/webhooks/endpoints/${endpoint.id}`),
      200,
    );
    const patched = await admin(target, 'PATCH', `/webhooks/endpoints/${endpoint.id}`, {
      events: ['payment.settled'],
      enabled: false,
    });
    await expectContract(A, 'PATCH /webhooks/endpoints/{id}', patched, 200);
    expect(patched.json).toMatchObject({ events: ['payment.settled'], enabled: false });

    const first = await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, { secret: SECRET });
    await expectContract(A, 'PUT /webhooks/endpoints/{id}/secret', first, 200);
    expect(first.json).toMatchObject({ hasSecret: true, previousSecretExpiresAt: null });
    expect(first.text).not.toContain(SECRET);
    const rotated = await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, {
      secret: `${SECRET}2`,
      gracePeriodSeconds: 3600,
    });
    const expires = Date.parse((rotated.json as { previousSecretExpiresAt: string }).previousSecretExpiresAt);
    expect(expires - target.reference!.now!()).toBeGreaterThan(3590_000);
    const dropped = await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, {
      secret: `${SECRET}3`,
      gracePeriodSeconds: 0,
    });
    expect(dropped.json).toMatchObject({ previousSecretExpiresAt: null });

    await expectContract(
      A,
      'DELETE /webhooks/endpoints/{id}',
      await admin(target, 'DELETE', `/webhooks/endpoints/${endpoint.id}`),
      204,
    );
    await expectContract(
      A,
      'GET /webhooks/endpoints/{id}',
      await admin(target, 'GET', `/webhooks/endpoints/${endpoint.id}`),
      404,
    );
  });

  it('refuses bad input with 400 naming the field, and unknown endpoints with 404', async () => {
    const http = await admin(target, 'POST', '/webhooks/endpoints', {
      url: 'http://hooks.bank-a.example/svckit',
      accountIds: owner,
    });
    await expectContract(A, 'POST /webhooks/endpoints', http, 400);
    expect((http.json as { error: string }).error).toBe(
      '"url" expected https URL, got "http://hooks.bank-a.example/svckit"',
    );
    const unknown = await admin(target, 'POST', '/webhooks/endpoints', {
      url: URL_OK,
      accountIds: owner,
      events: ['payment.created'],
    });
    expect((unknown.json as { error: string }).error).toBe(
      '"events[0]" expected one of payment.initiated, payment.rate_locked, payment.settled, payment.failed, payment.returned, got "payment.created"',
    );
    await expectContract(
      A,
      'POST /webhooks/endpoints',
      await admin(target, 'POST', '/webhooks/endpoints', {
        url: URL_OK,
        accountIds: owner,
        events: ['payment.settled', 'payment.settled'],
      }),
      400,
    );
    // D-142: an endpoint names the accounts whose payments it receives, each an existing account.
    const ownerless = await admin(target, 'POST', '/webhooks/endpoints', { url: URL_OK });
    await expectContract(A, 'POST /webhooks/endpoints', ownerless, 400);
    expect((ownerless.json as { error: string }).error).toBe(
      '"accountIds" expected a list of 1 to 100 account ids (acc_ + 26 Crockford base32), got nothing',
    );
    const stranger = await admin(target, 'POST', '/webhooks/endpoints', {
      url: URL_OK,
      accountIds: ['acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XB'],
    });
    await expectContract(A, 'POST /webhooks/endpoints', stranger, 400);
    expect(stranger.json).toEqual({
      error: '"accountIds[0]" expected an existing account, got "acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XB"',
      code: 'UNKNOWN_ACCOUNT',
    });
    const id = (await admin(target, 'POST', '/webhooks/endpoints', { url: URL_OK, accountIds: owner })).json as {
      id: string;
    };
    await expectContract(
      A,
      'PATCH /webhooks/endpoints/{id}',
      await admin(target, 'PATCH', `/webhooks/endpoints/${id.id}`, { accountIds: [] }),
      400,
    );
    await expectContract(
      A,
      'PATCH /webhooks/endpoints/{id}',
      await admin(target, 'PATCH', `/webhooks/endpoints/${id.id}`, {}),
      400,
    );
    const short = await admin(target, 'PUT', `/webhooks/endpoints/${id.id}/secret`, { secret: 'short-secret' });
    await expectContract(A, 'PUT /webhooks/endpoints/{id}/secret', short, 400);
    expect((short.json as { error: string }).error).toBe(
      '"secret" expected 32 to 256 printable characters without spaces, got 12 characters',
    );
    await expectContract(
      A,
      'PUT /webhooks/endpoints/{id}/secret',
      await admin(target, 'PUT', `/webhooks/endpoints/${id.id}/secret`, { secret: SECRET, gracePeriodSeconds: 604801 }),
      400,
    );
    await expectContract(A, 'GET /webhooks/endpoints/{id}', await admin(target, 'GET', '/webhooks/endpoints/42'), 400);
    await expectContract(
      A,
      'GET /webhooks/endpoints/{id}',
      await admin(target, 'GET', '/webhooks/endpoints/whe_01JD42C8E5F2G7H3J9K4M6N1PB'),
      404,
    );
    await expectContract(
      A,
      'DELETE /webhooks/endpoints/{id}',
      await admin(target, 'DELETE', '/webhooks/endpoints/whe_01JD42C8E5F2G7H3J9K4M6N1PB'),
      404,
    );
    await expectContract(
      A,
      'GET /webhooks/endpoints',
      await admin(target, 'GET', '/webhooks/endpoints', undefined, null),
      401,
    );
  });
});

describe('deliveries, pacs.008 and returns', () => {
  it('lists deliveries with attempts, refuses redelivering a live one, and takes pacs.008 instructions', async () => {
    const debtor = await newAccount(target, { fund: '100.00' });
    const creditor = await newAccount(target);
    const key = await apiKey(target, ['payments:write', 'transfers:write']);
    const endpoint = (
      await admin(target, 'POST', '/webhooks/endpoints', {
        url: 'https://127.0.0.1:9/unreachable',
        accountIds: [debtor.id],
        events: ['payment.initiated', 'payment.failed'],
      })
    ).json as { id: string };
    await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, { secret: SECRET });
    const body = (uetr: string, extra: Record<string, unknown> = {}) => ({
      msgId: 'DEUT20261121093000001',
      sttlmAcct: debtor.id,
      endToEndId: 'INV-2026-1142',
      uetr,
      intrBkSttlmAmt: '1250.50',
      intrBkSttlmCcy: 'EUR',
      chrgBr: 'SHAR',
      dbtrNm: 'Example Manufacturing GmbH',
      dbtrAgt: 'DEUTDEFFXXX',
      cdtrNm: 'Example Trading Ltd',
      cdtrAcct: creditor.id,
      cdtrAgt: 'SVCKGB2LXXX',
      ...extra,
    });
    const uetr = randomUUID();
    const accepted = await wallet(target, 'POST', '/payments/pacs008', key, body(uetr));
    await expectContract(I, 'POST /payments/pacs008', accepted, 202);
    expect(accepted.json).toMatchObject({ ok: true, uetr, status: 'INITIATED' });
    await expectContract(
      I,
      'POST /payments/pacs008',
      await wallet(target, 'POST', '/payments/pacs008', key, body(uetr)),
      409,
    );
    const agent = await wallet(
      target,
      'POST',
      '/payments/pacs008',
      key,
      body(randomUUID(), { cdtrAgt: 'DEUTDEFFXXX' }),
    );
    expect((agent.json as { error: string }).error).toBe(
      '"cdtrAgt" expected the platform BIC SVCKGB2LXXX, got "DEUTDEFFXXX"',
    );
    const xau = await wallet(target, 'POST', '/payments/pacs008', key, body(randomUUID(), { intrBkSttlmCcy: 'XAU' }));
    await expectContract(I, 'POST /payments/pacs008', xau, 400);
    expect(xau.json).toMatchObject({ code: 'UNSUPPORTED_CURRENCY' });
    expect(
      (
        await wallet(
          target,
          'POST',
          '/payments/pacs008',
          key,
          body(randomUUID(), { cdtrAcct: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XB' }),
        )
      ).json,
    ).toMatchObject({ code: 'UNKNOWN_ACCOUNT' });
    const readOnly = await apiKey(target, ['transfers:write']);
    await expectContract(
      I,
      'POST /payments/pacs008',
      await wallet(target, 'POST', '/payments/pacs008', readOnly, body(randomUUID())),
      403,
    );

    // 1313.02 SVC exceeds the settlement account's 100.00: payment.failed; the receiver is unreachable (retries).
    const failed = await eventually(async () => {
      const page = await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpoint.id}&status=pending`);
      const deliveries = (page.json as { deliveries: { event: string; attempts: unknown[] }[] }).deliveries;
      return deliveries.some((d) => d.event === 'payment.failed' && d.attempts.length > 0) ? page : undefined;
    });
    await expectContract(A, 'GET /webhooks/deliveries', failed, 200);
    const one = (
      failed.json as { deliveries: { id: string; attempts: { error: string }[]; payload: { failRsn?: string } }[] }
    ).deliveries[0]!;
    expect(one.attempts[0]!.error).toBe('connection failed');
    await expectContract(
      A,
      'GET /webhooks/deliveries/{id}',
      await admin(target, 'GET', `/webhooks/deliveries/${one.id}`),
      200,
    );
    const live = await admin(target, 'POST', `/webhooks/deliveries/${one.id}/redeliver`);
    await expectContract(A, 'POST /webhooks/deliveries/{id}/redeliver', live, 409);
    expect(live.json).toMatchObject({ code: 'NOT_DEAD' });
    await expectContract(
      A,
      'GET /webhooks/deliveries/{id}',
      await admin(target, 'GET', `/webhooks/deliveries/${randomUUID()}`),
      404,
    );
    await expectContract(
      A,
      'POST /webhooks/deliveries/{id}/redeliver',
      await admin(target, 'POST', `/webhooks/deliveries/${randomUUID()}/redeliver`),
      404,
    );
    await expectContract(
      A,
      'GET /webhooks/deliveries',
      await admin(target, 'GET', '/webhooks/deliveries?status=failed'),
      400,
    );

    // D-060: deleting the endpoint marks its pending deliveries dead and keeps them listed.
    await admin(target, 'DELETE', `/webhooks/endpoints/${endpoint.id}`);
    const after = (await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpoint.id}`)).json as {
      total: number;
      deliveries: { status: string }[];
    };
    expect(after.total).toBeGreaterThan(0);
    expect(after.deliveries.every((d) => d.status === 'dead')).toBe(true);

    // D-062: only SETTLED payments can be returned.
    await expectContract(
      A,
      'POST /payments/{uetr}/return',
      await admin(target, 'POST', `/payments/${uetr}/return`),
      409,
    );
    await expectContract(
      A,
      'POST /payments/{uetr}/return',
      await admin(target, 'POST', `/payments/${randomUUID()}/return`),
      404,
    );
    await expectContract(
      A,
      'POST /payments/{uetr}/return',
      await admin(target, 'POST', '/payments/8A562C67/return', {}),
      400,
    );
  });
});

describe('svckit admin webhooks (CLI)', () => {
  it('lists deliveries with their attempts from the running server', async () => {
    const ca = path.join(mkdtempSync(path.join(tmpdir(), 'svckit-cli-')), 'ca.pem');
    writeFileSync(ca, target.caCert!);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        'bin/svckit.js',
        'admin',
        'webhooks',
        'deliveries',
        'list',
        '--base',
        target.base!.href,
        '--token',
        target.adminToken!,
        '--ca-cert',
        ca,
        '--status',
        'dead',
      ],
      { cwd: REPO_ROOT },
    );
    expect(stdout).toMatch(/^\d+ deliveries; page 1/);
    expect(stdout).toMatch(/payment\.(initiated|failed)\s+dead\s+round 1/);
    expect(stdout).toMatch(/1\.1 {2}\S+ +\d+ ms {2}failure connection failed/);

    const unknown = await promisify(execFile)(
      process.execPath,
      [
        'bin/svckit.js',
        'admin',
        'webhooks',
        'redeliver',
        randomUUID(),
        '--base',
        target.base!.href,
        '--token',
        target.adminToken!,
        '--ca-cert',
        ca,
      ],
      { cwd: REPO_ROOT },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^svckit admin: HTTP 404: /) });
  });
});
