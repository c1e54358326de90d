/**
 * The `webhooks` document surface: generated deliveries of every AsyncAPI message held in process against
 * the receiving library (`verifyWebhook`, src/client/webhook-verifier.ts) followed by the message's schemas
 * — what a contract-following receiver does (D-194). Valid deliveries must verify and validate; tampered
 * ones (changed after signing, wrong secret, outside the replay window) must be refused by the verifier
 * itself; coverage variants of the payload and of the four X-SVC headers must be refused by the verifier or
 * by the schemas.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { verifyWebhook } from '@svckit/sdk/webhooks/verifier';
import { signatureHeader } from '../../../src/webhooks/signature.ts';
import { describeErrors, schemaErrors } from '../core/ajv.ts';
import type { Phase } from '../core/cases.ts';
import type { SurfaceCoverage } from '../core/coverage.ts';
import { type DocumentAnswer, type DocumentCase, type DocumentResult, tallyBook } from '../core/documents.ts';
import {
  DELIVERY_HEADERS,
  deliveryArbitrary,
  EXAMPLE_SECRET,
  type GeneratedDelivery,
  loadMessages,
  type MessageContract,
  messageExamples,
  messageOf,
  signDelivery,
} from './messages.ts';
import { failsFor, variantsOf } from '../core/variants.ts';

/** The receiving library's signature (a fault-injection test passes a broken one). */
export type WebhookVerifier = typeof verifyWebhook;

/** Options of {@link runMessageCases}. */
export interface MessageRunOptions {
  phases: readonly Phase[];
  seed: number;
  /** Fuzz cases per message. */
  maxExamples: number;
  /** Directory of the contracts (for the messages' examples). */
  specsDir: string;
  /** The verifier under test (default verifyWebhook). */
  verify?: WebhookVerifier;
}

/** What a case expects: accepted, or refused — by the verifier itself (with a code) or by either stage. */
type Expect = { accept: true } | { accept: false; by: 'verifier' | 'either'; code?: string };

/** One delivery case before it is judged. */
interface MessageCase {
  event: string;
  group: 'valid' | 'tampered' | 'invalid';
  reason: string;
  delivery: GeneratedDelivery;
  secrets: string[];
  nowMs: number;
  expect: Expect;
  /** The header or payload pointer the case varies, for coverage. */
  part?: string;
}

/** The secret the generated deliveries are signed with (a run's own; never a deployment's). */
const SECRET = 'whsec_engine-generated-deliveries-secret-0001';
/** spec: "The receiver rejects a delivery whose timestamp is more than 5 minutes old". */
const WINDOW_S = 300;

/**
 * A delivery received in process: `verify` first (signature and replay window), then the headers and the
 * payload against the message that X-SVC-Event names (D-194).
 */
export function receiveInProcess(
  delivery: GeneratedDelivery,
  secrets: readonly string[],
  nowMs: number,
  verify: WebhookVerifier = verifyWebhook,
): DocumentAnswer {
  let verified: ReturnType<WebhookVerifier>;
  try {
    verified = verify(delivery.body, delivery.headers, secrets, { now: nowMs });
  } catch (error) {
    const e = error as Error & { code?: string };
    return { accepted: false, stage: 'verifier', code: e.code ?? 'ERROR', message: e.message };
  }
  const message = messageOf(verified.event);
  if (!message)
    return { accepted: false, stage: 'schema', message: `X-SVC-Event "${verified.event}" names no message` };
  const headerErrors = schemaErrors(message.headers, delivery.headers);
  if (headerErrors.length)
    return { accepted: false, stage: 'schema', message: `headers: ${describeErrors(headerErrors)}` };
  const payloadErrors = schemaErrors(message.payload, verified.payload);
  if (payloadErrors.length)
    return { accepted: false, stage: 'schema', message: `payload: ${describeErrors(payloadErrors)}` };
  if (JSON.stringify(verified.payload) !== delivery.body || verified.deliveryId !== delivery.headers['X-SVC-Delivery'])
    return { accepted: false, stage: 'verifier', message: 'the verified delivery differs from the one sent' };
  return { accepted: true, message: `accepted (${verified.event})` };
}

const resign = (d: GeneratedDelivery, payload: unknown, secrets: string[], nowMs: number) =>
  signDelivery(d.event, payload, secrets, nowMs, d.headers['X-SVC-Delivery']);

/** The valid, tampered and invalid cases derived from one valid delivery of `message`. */
export function casesFromDelivery(message: MessageContract, base: GeneratedDelivery, nowMs: number): MessageCase[] {
  const secrets = [SECRET];
  const payload = JSON.parse(base.body) as Record<string, unknown>;
  const out: MessageCase[] = [];
  const add = (
    group: MessageCase['group'],
    reason: string,
    delivery: GeneratedDelivery,
    expect: Expect,
    part?: string,
  ) => out.push({ event: message.event, group, reason, delivery, secrets, nowMs, expect, ...(part ? { part } : {}) });
  const refusedBy = (code: string): Expect => ({ accept: false, by: 'verifier', code });
  add('valid', 'a valid delivery', base, { accept: true });
  add(
    'valid',
    `signed ${WINDOW_S} s ago (the edge of the replay window)`,
    resign(base, payload, secrets, nowMs - WINDOW_S * 1000),
    {
      accept: true,
    },
  );
  // Tampered: changed after signing, or signed with what the receiver does not hold.
  const seen = new Set([base.body]);
  for (const v of variantsOf(message.payload, payload)) {
    const body = JSON.stringify(v.value) ?? 'null';
    if (seen.has(body)) continue;
    seen.add(body);
    add(
      'tampered',
      `body changed after signing: ${v.reason}`,
      { ...base, body },
      refusedBy('SIGNATURE_MISMATCH'),
      `payload:${v.at}`,
    );
    const errors = schemaErrors(message.payload, v.value);
    if (v.valid ? errors.length > 0 : !failsFor(errors, v.keyword)) continue;
    add(
      v.valid ? 'valid' : 'invalid',
      `payload ${v.reason}`,
      resign(base, v.value, secrets, nowMs),
      v.valid ? { accept: true } : { accept: false, by: 'either' },
      `payload:${v.at}`,
    );
  }
  for (const name of message.forbidden)
    add(
      'invalid',
      `payload /${name} present where the message forbids it`,
      resign(base, { ...payload, [name]: 'x' }, secrets, nowMs),
      { accept: false, by: 'either' },
      `payload:/${name}`,
    );
  add(
    'tampered',
    'body re-serialised with indentation after signing',
    { ...base, body: JSON.stringify(payload, null, 2) },
    refusedBy('SIGNATURE_MISMATCH'),
  );
  const ts = base.headers['X-SVC-Timestamp'] as string;
  add(
    'tampered',
    'X-SVC-Timestamp moved one second after signing',
    { ...base, headers: { ...base.headers, 'X-SVC-Timestamp': String(Number(ts) - 1) } },
    refusedBy('SIGNATURE_MISMATCH'),
    'X-SVC-Timestamp',
  );
  add(
    'tampered',
    'signed with a secret the receiver does not hold',
    resign(base, payload, [`${SECRET}-other`], nowMs),
    refusedBy('SIGNATURE_MISMATCH'),
    'X-SVC-Signature',
  );
  add(
    'tampered',
    'X-SVC-Signature digest in upper case',
    {
      ...base,
      headers: { ...base.headers, 'X-SVC-Signature': (base.headers['X-SVC-Signature'] as string).toUpperCase() },
    },
    refusedBy('MALFORMED_SIGNATURE'),
    'X-SVC-Signature',
  );
  add(
    'tampered',
    `signed ${WINDOW_S + 1} s ago (stale)`,
    resign(base, payload, secrets, nowMs - (WINDOW_S + 1) * 1000),
    refusedBy('STALE_TIMESTAMP'),
    'X-SVC-Timestamp',
  );
  add(
    'tampered',
    `signed ${WINDOW_S + 1} s ahead (future)`,
    resign(base, payload, secrets, nowMs + (WINDOW_S + 1) * 1000),
    refusedBy('FUTURE_TIMESTAMP'),
    'X-SVC-Timestamp',
  );
  // Signed, but against the headers schema in ways its variants do not reach: another message's event type,
  // and three signatures where D-047 allows two. The verifier refuses both itself.
  const other = loadMessages().find((m) => m.event !== message.event)?.event ?? 'payment.failed';
  add(
    'invalid',
    `header X-SVC-Event "${other}" naming another message than the payload's`,
    { ...base, headers: { ...base.headers, 'X-SVC-Event': other } },
    refusedBy('EVENT_MISMATCH'),
    'X-SVC-Event',
  );
  const three = signatureHeader([SECRET, `${SECRET}-b`, `${SECRET}-c`], ts, base.body);
  add(
    'invalid',
    'header X-SVC-Signature with three signatures (D-047 allows two)',
    { ...base, headers: { ...base.headers, 'X-SVC-Signature': three } },
    refusedBy('MALFORMED_SIGNATURE'),
    'X-SVC-Signature',
  );
  // Invalid headers: the headers schema's variants; the verifier refuses every one (a missing header, the
  // signature's and the timestamp's form, an event type outside the five, a delivery id that is not a UUID).
  for (const v of variantsOf(message.headers, base.headers)) {
    // The headers as a whole are not a value on the wire: only each header's variants are.
    if (v.valid || v.at === '') continue;
    const name = v.at.split('/')[1] ?? '';
    const headers = v.value as Record<string, unknown>;
    const value = headers[name];
    if (value !== undefined && typeof value !== 'string') continue; // a header is a string on the wire
    if (!failsFor(schemaErrors(message.headers, headers), v.keyword)) continue;
    const delivery: GeneratedDelivery = { ...base, headers: { ...(headers as Record<string, string>) } };
    // A malformed timestamp is signed as it stands, so only its form is wrong.
    if (name === 'X-SVC-Timestamp' && typeof value === 'string')
      delivery.headers['X-SVC-Signature'] = signatureHeader(secrets, value, base.body);
    add('invalid', `header ${v.reason}`, delivery, { accept: false, by: 'verifier' }, name);
  }
  return out;
}

/** The problem of an answer against what the case expects (undefined: as expected). */
function problemOf(c: MessageCase, answer: DocumentAnswer): string | undefined {
  if (c.expect.accept) return answer.accepted ? undefined : `refused by the ${answer.stage}: ${answer.message}`;
  if (answer.accepted) return `accepted, expected a refusal${c.expect.by === 'verifier' ? ' by the verifier' : ''}`;
  if (c.expect.by === 'verifier' && answer.stage !== 'verifier')
    return `refused only by the ${answer.stage} (${answer.message}); the verifier accepted it`;
  if (c.expect.code && answer.code !== c.expect.code) return `refused with ${answer.code}, expected ${c.expect.code}`;
  return undefined;
}

/** Empty coverage of the messages: messages, messages × headers, and payload properties per message. */
export function emptyMessageCoverage(messages: readonly MessageContract[]): SurfaceCoverage {
  const cov: SurfaceCoverage = { operations: {}, responses: {}, parameters: {} };
  for (const m of messages) {
    cov.operations[m.event] = false;
    for (const h of DELIVERY_HEADERS) cov.responses[`${m.event} ${h}`] = false;
    for (const name of Object.keys((m.payload.properties ?? {}) as object))
      cov.parameters[`${m.event} payload:/${name}`] = false;
  }
  return cov;
}

/** Runs the phases over every message and judges each case in process. */
export async function runMessageCases(options: MessageRunOptions): Promise<DocumentResult> {
  const verify = options.verify ?? verifyWebhook;
  const messages = loadMessages();
  const book = tallyBook('webhooks', ['message_valid_accepted', 'message_tampered_refused', 'message_invalid_refused']);
  const coverage = emptyMessageCoverage(messages);
  const timings: DocumentResult['timings'] = [];
  const judge = (phase: Phase, c: MessageCase) => {
    const answer = receiveInProcess(c.delivery, c.secrets, c.nowMs, verify);
    const problem = problemOf(c, answer);
    const check =
      c.group === 'valid'
        ? 'message_valid_accepted'
        : c.group === 'tampered'
          ? 'message_tampered_refused'
          : 'message_invalid_refused';
    const dc: DocumentCase = {
      surface: 'webhooks',
      operation: c.event,
      phase,
      kind: c.expect.accept ? 'positive' : 'negative',
      reason: c.reason,
      input: {
        params: Object.fromEntries(Object.entries(c.delivery.headers).map(([k, v]) => [`header:${k}`, v])),
        body: c.delivery.body,
      },
      method: 'POST',
      authenticated: false,
    };
    book.verdict(check, dc, answer, problem);
    if (problem !== undefined) return;
    if (c.expect.accept) coverage.operations[c.event] = true;
    const header = c.part && !c.part.startsWith('payload:') ? c.part : undefined;
    if (header && !c.expect.accept) coverage.responses[`${c.event} ${header}`] = true;
    const top = c.part?.startsWith('payload:') ? `${c.event} payload:/${c.part.split('/')[1]}` : undefined;
    if (top && top in coverage.parameters) coverage.parameters[top] = true;
    if (c.expect.accept)
      for (const name of Object.keys(JSON.parse(c.delivery.body) as object))
        if (`${c.event} payload:/${name}` in coverage.parameters)
          coverage.parameters[`${c.event} payload:/${name}`] = true;
  };
  const nowMs = Date.now();
  for (const phase of options.phases) {
    const t0 = performance.now();
    let cases = 0;
    if (phase === 'examples') {
      for (const e of messageExamples(options.specsDir)) {
        const body = JSON.stringify(e.payload);
        const atMs = Number(e.headers['X-SVC-Timestamp']) * 1000;
        judge(phase, {
          event: e.event,
          group: 'valid',
          reason: `contract example ${e.name}`,
          delivery: { event: e.event, body, headers: e.headers },
          secrets: [EXAMPLE_SECRET],
          nowMs: atMs,
          expect: { accept: true },
        });
        cases += 1;
      }
    } else if (phase === 'coverage' || phase === 'fuzz') {
      messages.forEach((m, i) => {
        const bases = fc.sample(deliveryArbitrary(m, SECRET, nowMs), {
          seed: options.seed + i,
          numRuns: phase === 'coverage' ? 1 : options.maxExamples,
        });
        const picks = fc.sample(fc.nat(), { seed: options.seed + 100 + i, numRuns: bases.length });
        bases.forEach((base, k) => {
          const all = casesFromDelivery(m, base, nowMs).map((c) => ({ ...c, secrets: [SECRET] }));
          // fuzz: half the deliveries as drawn, half one of their variants.
          const chosen =
            phase === 'coverage'
              ? all
              : k % 2 === 0
                ? all.slice(0, 1)
                : [all[(picks[k] ?? 0) % all.length] as MessageCase];
          for (const c of chosen) judge(phase, c);
          cases += chosen.length;
        });
      });
    }
    timings.push({ phase, cases, ms: Math.round(performance.now() - t0) });
  }
  return { surface: 'webhooks', tallies: [...book.tallies.values()], coverage, timings };
}
