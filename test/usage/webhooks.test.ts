// Surface B: a delivery built with the generated webhook types and signed as the contract
// says reaches a receiver (an MSW handler) that checks it with the generated schemas.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMessageByEvent, webhookSchemaDefs } from '../../generated/webhooks/schemas.gen';
import type { PaymentSettledHeaders, PaymentSettledPayload } from '../../generated/webhooks/types.gen';
import { loadSpec } from '../../scripts/generate/spec-loader.ts';

const SECRET = 'example-signing-secret';
const sign = (timestamp: string, body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

// AsyncAPI 3.0 schemas are JSON Schema draft-07.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'webhooks', $defs: webhookSchemaDefs });
const validatePayload = (event: keyof typeof webhookMessageByEvent) =>
  ajv.getSchema(`webhooks#/$defs/${webhookMessageByEvent[event]}Payload`)!;

const received: { event: string; valid: boolean; signatureOk: boolean }[] = [];
const server = setupServer(
  http.post('https://receiver.example.com/webhooks/svckit', async ({ request }) => {
    const raw = await request.text();
    const timestamp = request.headers.get('x-svc-timestamp')!;
    const expected = Buffer.from(sign(timestamp, raw));
    const given = Buffer.from(request.headers.get('x-svc-signature')!);
    const signatureOk = expected.length === given.length && timingSafeEqual(expected, given);
    const event = request.headers.get('x-svc-event') as keyof typeof webhookMessageByEvent;
    received.push({ event, valid: validatePayload(event)(JSON.parse(raw)) as boolean, signatureOk });
    return signatureOk
      ? new HttpResponse(null, { status: 204 })
      : HttpResponse.json({ error: 'bad signature' }, { status: 401 });
  }),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

type MessageExample = { headers: Record<string, string>; payload: unknown };
const messages = (
  loadSpec('webhooks.asyncapi.yaml').components as { messages: Record<string, { examples: MessageExample[] }> }
).messages;

describe('webhook types and schemas', () => {
  it('the contract examples carry real signatures over their compact JSON body', () => {
    for (const [name, message] of Object.entries(messages)) {
      for (const example of message.examples) {
        const body = JSON.stringify(example.payload);
        const signatures = example.headers['X-SVC-Signature']!.split(',');
        expect(signatures[0], name).toBe(sign(example.headers['X-SVC-Timestamp']!, body));
      }
    }
  });

  it('a typed payment.settled delivery is accepted by a receiver that verifies it', async () => {
    const example = messages.paymentSettled!.examples[0]!;
    const payload = example.payload as PaymentSettledPayload;
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: PaymentSettledHeaders = {
      'X-SVC-Signature': sign(timestamp, body),
      'X-SVC-Event': 'payment.settled',
      'X-SVC-Timestamp': timestamp,
      'X-SVC-Delivery': example.headers['X-SVC-Delivery']!,
    };
    const response = await fetch('https://receiver.example.com/webhooks/svckit', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body,
    });
    expect(response.status).toBe(204);
    expect(received.at(-1)).toEqual({ event: 'payment.settled', valid: true, signatureOk: true });
  });

  it('the generated schema refuses failRsn on payment.settled', () => {
    const payload = { ...(messages.paymentSettled!.examples[0]!.payload as object), failRsn: 'nope' };
    expect(validatePayload('payment.settled')(payload)).toBe(false);
  });
});
