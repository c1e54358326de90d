// The receiver helper src/client/webhook-verifier.ts against the contract's own signed examples (spec
// "Signature rules"; D-047 rotation), its replay window both ways, and its constant-time comparison.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { loadSpec } from '../../scripts/generate/spec-loader.ts';

const calls = vi.hoisted(() => ({ timingSafeEqual: 0 }));
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.timingSafeEqual++;
      return real.timingSafeEqual(a, b);
    },
  };
});
const { verifyWebhook, WebhookVerificationError } = await import('../../src/client/webhook-verifier.ts');

type Example = { headers: Record<string, string>; payload: unknown };
const messages = (
  loadSpec('webhooks.asyncapi.yaml').components as { messages: Record<string, { examples: Example[] }> }
).messages;
const settled = messages.paymentSettled!.examples[0]!;
const rotation = messages.paymentSettled!.examples[1]!;
const CURRENT = 'example-signing-secret';
const PREVIOUS = 'example-previous-signing-secret';
const body = JSON.stringify(settled.payload);
const at = (example: Example, offsetSeconds = 0) => (Number(example.headers['X-SVC-Timestamp']) + offsetSeconds) * 1000;
const sign = (secret: string, timestamp: string, raw: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`;

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as InstanceType<typeof WebhookVerificationError>).code;
  }
  throw new Error('expected a rejection');
}

describe('verifyWebhook', () => {
  it("accepts the contract's signed example and returns the delivery", () => {
    const verified = verifyWebhook(body, settled.headers, CURRENT, { now: at(settled) });
    expect(verified).toEqual({
      event: 'payment.settled',
      deliveryId: settled.headers['X-SVC-Delivery'],
      timestamp: Number(settled.headers['X-SVC-Timestamp']),
      replayKey: createHash('sha256').update(`${settled.headers['X-SVC-Timestamp']}.${body}`).digest('hex'),
      payload: settled.payload,
    });
  });

  it('gives a captured delivery resent under another delivery id the same replay key, another attempt another (D-224)', () => {
    const now = at(settled);
    const ts = settled.headers['X-SVC-Timestamp']!;
    const first = verifyWebhook(body, settled.headers, CURRENT, { now });
    // What an observer can change without the secret: the unsigned delivery id, and the signature list.
    const resent = {
      ...settled.headers,
      'X-SVC-Delivery': '7f3c2a10-9b4e-4d6f-8a21-5c0e9d3b7a64',
      'X-SVC-Signature': `${settled.headers['X-SVC-Signature']},${sign('other-secret', ts, body)}`,
    };
    const replayed = verifyWebhook(body, resent, CURRENT, { now });
    expect(replayed.deliveryId).not.toBe(first.deliveryId);
    expect(replayed.replayKey).toBe(first.replayKey);
    expect(first.replayKey).toMatch(/^[0-9a-f]{64}$/);
    // The sender's next attempt of the same delivery is signed with a fresh timestamp: a new key.
    const later = String(Number(ts) + 30);
    const retry = { ...settled.headers, 'X-SVC-Timestamp': later, 'X-SVC-Signature': sign(CURRENT, later, body) };
    expect(verifyWebhook(body, retry, CURRENT, { now }).replayKey).not.toBe(first.replayKey);
  });

  it('reads fetch Headers and Node lower-case header objects alike, and Buffer bodies', () => {
    const lower = Object.fromEntries(Object.entries(settled.headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(
      verifyWebhook(Buffer.from(body), new Headers(settled.headers), CURRENT, { now: () => at(settled) }).event,
    ).toBe('payment.settled');
    expect(verifyWebhook(body, lower, [CURRENT], { now: at(settled) }).event).toBe('payment.settled');
  });

  it('during a rotation accepts a receiver holding either secret, or both (D-047)', () => {
    const rotated = JSON.stringify(rotation.payload);
    expect(rotation.headers['X-SVC-Signature']!.split(',')).toHaveLength(2);
    for (const secrets of [CURRENT, PREVIOUS, [PREVIOUS, CURRENT], ['unrelated-secret-unrelated-secret', PREVIOUS]]) {
      expect(verifyWebhook(rotated, rotation.headers, secrets, { now: at(rotation) }).event).toBe('payment.settled');
    }
    expect(
      rejection(() =>
        verifyWebhook(rotated, rotation.headers, 'unrelated-secret-unrelated-secret', { now: at(rotation) }),
      ),
    ).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a timestamp more than 5 minutes old or ahead, and accepts one exactly at the limit', () => {
    expect(verifyWebhook(body, settled.headers, CURRENT, { now: at(settled, 300) }).event).toBe('payment.settled');
    expect(verifyWebhook(body, settled.headers, CURRENT, { now: at(settled, -300) }).event).toBe('payment.settled');
    expect(rejection(() => verifyWebhook(body, settled.headers, CURRENT, { now: at(settled, 301) }))).toBe(
      'STALE_TIMESTAMP',
    );
    expect(rejection(() => verifyWebhook(body, settled.headers, CURRENT, { now: at(settled, -301) }))).toBe(
      'FUTURE_TIMESTAMP',
    );
    expect(
      rejection(() => verifyWebhook(body, settled.headers, CURRENT, { now: at(settled, 61), toleranceSeconds: 60 })),
    ).toBe('STALE_TIMESTAMP');
  });

  it('a stale delivery re-signed by an attacker without the secret fails; a re-stamped one fails the HMAC', () => {
    const restamped = {
      ...settled.headers,
      'X-SVC-Timestamp': String(Number(settled.headers['X-SVC-Timestamp']) + 1000),
    };
    expect(rejection(() => verifyWebhook(body, restamped, CURRENT, { now: at(settled, 1000) }))).toBe(
      'SIGNATURE_MISMATCH',
    );
  });

  it('refuses a changed body, a wrong secret, upper-case hex, malformed or missing headers', () => {
    const now = at(settled);
    expect(rejection(() => verifyWebhook(body.replace('1313.02', '1313.03'), settled.headers, CURRENT, { now }))).toBe(
      'SIGNATURE_MISMATCH',
    );
    expect(rejection(() => verifyWebhook(`${body}\n`, settled.headers, CURRENT, { now }))).toBe('SIGNATURE_MISMATCH');
    expect(rejection(() => verifyWebhook(body, settled.headers, 'wrong-secret', { now }))).toBe('SIGNATURE_MISMATCH');
    expect(rejection(() => verifyWebhook(body, settled.headers, [], { now }))).toBe('SIGNATURE_MISMATCH');
    const upper = {
      ...settled.headers,
      'X-SVC-Signature': settled.headers['X-SVC-Signature']!.replace(/[a-f]/g, (c) => c.toUpperCase()).replace(
        'SHA256',
        'sha256',
      ),
    };
    expect(rejection(() => verifyWebhook(body, upper, CURRENT, { now }))).toBe('MALFORMED_SIGNATURE');
    expect(
      rejection(() => verifyWebhook(body, { ...settled.headers, 'X-SVC-Signature': 'sha256=abc' }, CURRENT, { now })),
    ).toBe('MALFORMED_SIGNATURE');
    expect(
      rejection(() => verifyWebhook(body, { ...settled.headers, 'X-SVC-Timestamp': '17952534.06' }, CURRENT, { now })),
    ).toBe('MALFORMED_TIMESTAMP');
    const { 'X-SVC-Delivery': _dropped, ...noId } = settled.headers;
    expect(rejection(() => verifyWebhook(body, noId, CURRENT, { now }))).toBe('MISSING_HEADER');
    const ts = settled.headers['X-SVC-Timestamp']!;
    expect(
      rejection(() =>
        verifyWebhook('not json', { ...settled.headers, 'X-SVC-Signature': sign(CURRENT, ts, 'not json') }, CURRENT, {
          now,
        }),
      ),
    ).toBe('MALFORMED_BODY');
  });

  it("refuses an X-SVC-Event outside the five or other than the payload's, a delivery id that is not a UUID, three signatures", () => {
    const now = at(settled);
    const ts = settled.headers['X-SVC-Timestamp']!;
    // Each delivery below is correctly signed: only the header named is wrong.
    const with_ = (name: string, value: string) => ({ ...settled.headers, [name]: value });
    expect(rejection(() => verifyWebhook(body, with_('X-SVC-Event', 'payment.unknown'), CURRENT, { now }))).toBe(
      'MALFORMED_HEADER',
    );
    expect(rejection(() => verifyWebhook(body, with_('X-SVC-Event', 'payment.failed'), CURRENT, { now }))).toBe(
      'EVENT_MISMATCH',
    );
    expect(rejection(() => verifyWebhook(body, with_('X-SVC-Delivery', 'delivery-1'), CURRENT, { now }))).toBe(
      'MALFORMED_HEADER',
    );
    const three = [CURRENT, 'b', 'c'].map((s) => sign(s, ts, body)).join(',');
    expect(rejection(() => verifyWebhook(body, with_('X-SVC-Signature', three), CURRENT, { now }))).toBe(
      'MALFORMED_SIGNATURE',
    );
    const two = [CURRENT, 'b'].map((s) => sign(s, ts, body)).join(',');
    expect(verifyWebhook(body, with_('X-SVC-Signature', two), CURRENT, { now }).event).toBe('payment.settled');
  });

  it('compares digests with crypto.timingSafeEqual, every secret against every signature, match or not', () => {
    const rotated = JSON.stringify(rotation.payload);
    const count = (run: () => unknown) => {
      calls.timingSafeEqual = 0;
      try {
        run();
      } catch {
        // the count is what matters here
      }
      return calls.timingSafeEqual;
    };
    const now = at(rotation);
    // Two signatures × two secrets: four comparisons whether the first pair matches, the last one, or none.
    expect(count(() => verifyWebhook(rotated, rotation.headers, [CURRENT, PREVIOUS], { now }))).toBe(4);
    expect(count(() => verifyWebhook(rotated, rotation.headers, ['x'.repeat(32), PREVIOUS], { now }))).toBe(4);
    expect(count(() => verifyWebhook(rotated, rotation.headers, ['x'.repeat(32), 'y'.repeat(32)], { now }))).toBe(4);
    expect(count(() => verifyWebhook(body, settled.headers, CURRENT, { now: at(settled) }))).toBe(1);
  });
});
