// Generated webhook deliveries (specs/webhooks.asyncapi.yaml) held against the receiving library in process:
// valid ones verify and validate, tampered and invalid ones are refused; a verifier that lets a tampered body
// through, or has no replay window, is caught by the named check that says so.
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ratio } from '../../../conformance/engine/core/coverage.ts';
import type { DocumentResult } from '../../../conformance/engine/core/documents.ts';
import {
  casesFromDelivery,
  receiveInProcess,
  runMessageCases,
  type WebhookVerifier,
} from '../../../conformance/engine/asyncapi/cases.ts';
import { deliveryArbitrary, generatedDeliveries, loadMessages } from '../../../conformance/engine/asyncapi/messages.ts';
import { GENERATED_PER_EVENT } from '../../../conformance/receiver-side/checks.ts';
import { contractProblems, type EventType } from '../../../conformance/receiver-side/deliveries.ts';
import {
  receiverSideCatalogue,
  receiverSideTarget,
  receiverUnderTest,
} from '../../../conformance/receiver-side/index.ts';
import { runChecks } from '../../../conformance/runner.ts';
import { ensureDevCertificates } from '../../../src/server/tls/dev-certificates.ts';
import { verifyWebhook } from '../../../src/client/webhook-verifier.ts';
import { signatureHeader } from '../../../src/webhooks/signature.ts';
import { SPECS_DIR } from '../../../src/paths.ts';
import fc from 'fast-check';

const run = (verify?: WebhookVerifier) =>
  runMessageCases({
    phases: ['examples', 'coverage', 'fuzz'],
    seed: 7,
    maxExamples: 20,
    specsDir: SPECS_DIR,
    ...(verify ? { verify } : {}),
  });
const tally = (r: DocumentResult, check: string) => r.tallies.find((t) => t.check === check);

describe('webhook messages', () => {
  it('the receiving library accepts every valid delivery and refuses every tampered and invalid one', async () => {
    const r = await run();
    expect(
      r.tallies.flatMap((t) => t.failures.map((f) => `${f.case.operation} ${f.case.reason}: ${f.message}`)),
    ).toEqual([]);
    expect(tally(r, 'message_valid_accepted')?.passed).toBeGreaterThan(50);
    expect(tally(r, 'message_tampered_refused')?.passed).toBeGreaterThan(100);
    expect(tally(r, 'message_invalid_refused')?.passed).toBeGreaterThan(100);
    for (const t of r.tallies) expect(t.skipped, t.check).toBe(0);
    // Six signed examples in the contract, every message, every message × header pair, every payload field.
    expect(r.timings.find((t) => t.phase === 'examples')?.cases).toBe(6);
    expect(ratio(r.coverage.operations)).toEqual({ covered: 5, total: 5 });
    expect(ratio(r.coverage.responses)).toEqual({ covered: 20, total: 20 });
    const params = ratio(r.coverage.parameters);
    expect(params.covered).toBe(params.total);
  }, 120_000);

  it("generated deliveries pass the receiver-side harness's own contract validator (draft-07 ajv)", () => {
    const deliveries = generatedDeliveries('whsec_a-secret-of-thirty-two-characters-x', Date.now(), 3, 4);
    expect(deliveries).toHaveLength(20);
    for (const d of deliveries)
      expect(
        contractProblems({ ...d, event: d.event as EventType, deliveryId: d.headers['X-SVC-Delivery'] as string }),
      ).toEqual([]);
  });

  it('a delivery whose X-SVC-Event names another message is refused by the verifier itself', () => {
    const [settled] = loadMessages().filter((m) => m.event === 'payment.settled');
    const [d] = fc.sample(deliveryArbitrary(settled!, 's'.repeat(32), Date.now()), { seed: 1, numRuns: 1 });
    const swapped = { ...d!, headers: { ...d!.headers, 'X-SVC-Event': 'payment.failed' } };
    const answer = receiveInProcess(swapped, ['s'.repeat(32)], Date.now());
    expect(answer.accepted).toBe(false);
    expect(answer.stage).toBe('verifier');
    expect(answer.message).toContain("differs from the payload's event");
    expect(receiveInProcess(d!, ['s'.repeat(32)], Date.now()).accepted).toBe(true);
  });

  it('catches a verifier that accepts a body changed after signing (message_tampered_refused)', async () => {
    // The fault: the verifier signs whatever body arrives instead of checking the signature that came with it.
    const acceptsTampered: WebhookVerifier = (raw, headers, secrets, options) => {
      const h = headers as Record<string, string>;
      const list = typeof secrets === 'string' ? [secrets] : secrets;
      const resigned = { ...h, 'X-SVC-Signature': signatureHeader(list, h['X-SVC-Timestamp'] ?? '', String(raw)) };
      return verifyWebhook(raw, h['X-SVC-Signature'] ? resigned : h, secrets, options);
    };
    const r = await run(acceptsTampered);
    const t = tally(r, 'message_tampered_refused');
    expect(t?.failed).toBeGreaterThan(0);
    const changed = t?.failures.filter((f) => f.case.reason.startsWith('body changed after signing')) ?? [];
    // A changed body that breaks the payload schema gets past the verifier and is stopped only by the schema.
    expect(changed.some((f) => f.message.endsWith('the verifier accepted it'))).toBe(true);
    expect(tally(r, 'message_valid_accepted')?.failed).toBe(0);
  }, 120_000);

  it('catches a verifier without the replay window (message_tampered_refused)', async () => {
    const noWindow: WebhookVerifier = (raw, headers, secrets, options) =>
      verifyWebhook(raw, headers, secrets, { ...options, toleranceSeconds: 10 ** 9 });
    const r = await run(noWindow);
    const reasons = tally(r, 'message_tampered_refused')?.failures.map((f) => f.case.reason) ?? [];
    expect(reasons.some((x) => x.includes('(stale)'))).toBe(true);
    expect(reasons.some((x) => x.includes('(future)'))).toBe(true);
  }, 120_000);

  it('derives header variants of all four X-SVC headers from one valid delivery', () => {
    const [m] = loadMessages();
    const [d] = fc.sample(deliveryArbitrary(m!, 's'.repeat(32), 1_800_000_000_000), { seed: 2, numRuns: 1 });
    const parts = new Set(casesFromDelivery(m!, d!, 1_800_000_000_000).map((c) => c.part));
    for (const h of ['X-SVC-Signature', 'X-SVC-Event', 'X-SVC-Timestamp', 'X-SVC-Delivery'])
      expect(parts.has(h), h).toBe(true);
  });
});

describe('generated deliveries sent to a real HTTPS receiver (svckit conformance --webhook-receiver)', () => {
  const SECRET = 'whsec_generated_deliveries_receiver_0123456789';
  const servers: https.Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  /** A receiver on verifyWebhook answering 204 when `accept` takes the verified payload, else 400. */
  async function accepts(accept: (payload: Record<string, unknown>) => boolean) {
    const tls = await ensureDevCertificates(mkdtempSync(path.join(tmpdir(), 'svckit-generated-receiver-')), []);
    const received: string[] = [];
    const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push(raw);
        try {
          res.statusCode = accept(verifyWebhook(raw, req.headers, SECRET).payload as unknown as Record<string, unknown>)
            ? 204
            : 400;
        } catch {
          res.statusCode = 400;
        }
        res.end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = receiverUnderTest({
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
      secret: SECRET,
      caCert: tls.caCert,
    });
    const results = await runChecks(receiverSideCatalogue(receiver), receiverSideTarget(receiver));
    return { result: results.find((r) => r.id === 'webhooks.receiver.accepts_signed'), received };
  }

  it('accepts_signed sends generated deliveries of every event type besides the fixed ones', async () => {
    const { result, received } = await accepts(() => true);
    expect(result?.status).toBe('passed');
    const events = received.map((b) => (JSON.parse(b) as { event: string }).event);
    for (const m of loadMessages())
      expect(events.filter((e) => e === m.event).length, m.event).toBeGreaterThanOrEqual(1 + GENERATED_PER_EVENT);
  }, 120_000);

  it("a receiver that handles only the fixed payloads' amount fails accepts_signed on a generated delivery", async () => {
    const { result } = await accepts((p) => p.instrAmt === 1250.5);
    expect(result?.status).toBe('failed');
    expect(result?.reason).toContain('a generated payment.');
    expect(result?.reason).toContain('expected 2xx');
  }, 120_000);
});
