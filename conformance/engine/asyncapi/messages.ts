/**
 * The AsyncAPI messages of specs/webhooks.asyncapi.yaml as the engine reads them: per event type the
 * message's Headers and Payload schemas (draft-07, as `npm run generate` writes them into
 * generated/webhooks/schemas.gen.ts, `$ref`s resolved) and its signed examples; and generated deliveries of
 * them — payloads drawn from the payload schema, the four X-SVC headers from the headers schema, signed as
 * svckit signs (src/webhooks/signature.ts, spec "Signature rules").
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { webhookMessageByEvent, webhookSchemaDefs } from '@svckit/sdk/webhooks/schemas';
import { signatureHeader } from '../../../src/webhooks/signature.ts';
import { schemaErrors } from '../core/ajv.ts';
import { arbitraryOf } from '../core/arbitrary.ts';
import { resolveRefs, type Schema } from '../core/schema.ts';

/** The four X-SVC headers, in the contract's order. */
export const DELIVERY_HEADERS = ['X-SVC-Signature', 'X-SVC-Event', 'X-SVC-Timestamp', 'X-SVC-Delivery'] as const;

/** One message of the contract. */
export interface MessageContract {
  /** The event type (`X-SVC-Event`), e.g. `payment.settled`. */
  event: string;
  /** The message's Headers schema (the SignedDelivery trait merged with the message's own). */
  headers: Schema;
  /** The message's Payload schema. */
  payload: Schema;
  /** The payload properties the message forbids (`false` schemas, e.g. failRsn of payment.settled). */
  forbidden: string[];
}

/** A signed contract example of a message. */
export interface MessageExample {
  event: string;
  name: string;
  headers: Record<string, string>;
  payload: Record<string, unknown>;
}

/** A delivery: the raw body as sent and its headers. */
export interface GeneratedDelivery {
  event: string;
  body: string;
  headers: Record<string, string>;
}

/** The secret the contract's examples are signed with (specs/webhooks.asyncapi.yaml, info.description). */
export const EXAMPLE_SECRET = 'example-signing-secret';

const doc = { $defs: webhookSchemaDefs } as unknown as Record<string, unknown>;

/** A schema without its `false` properties (the arbitrary draws none of them; they stay refused by ajv). */
function allowedOnly(schema: Schema): { schema: Schema; forbidden: string[] } {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const forbidden = Object.keys(properties).filter((k) => properties[k] === false);
  const kept = Object.fromEntries(Object.entries(properties).filter(([, v]) => v !== false));
  return { schema: { ...schema, properties: kept }, forbidden };
}

let cached: MessageContract[] | undefined;

/** Every message of the contract, one per event type. */
export function loadMessages(): MessageContract[] {
  cached ??= Object.entries(webhookMessageByEvent).map(([event, name]) => {
    const defs = webhookSchemaDefs as unknown as Record<string, Schema>;
    const payload = resolveRefs(doc, defs[`${name}Payload`]) as Schema;
    return {
      event,
      headers: resolveRefs(doc, defs[`${name}Headers`]) as Schema,
      payload,
      forbidden: allowedOnly(payload).forbidden,
    };
  });
  return cached;
}

/** The message of an event type, if the contract has one. */
export function messageOf(event: string): MessageContract | undefined {
  return loadMessages().find((m) => m.event === event);
}

/** The signed examples of every message in the contract (`components.messages.*.examples`). */
export function messageExamples(specsDir: string): MessageExample[] {
  const spec = parseYaml(readFileSync(join(specsDir, 'webhooks.asyncapi.yaml'), 'utf8')) as {
    components: { messages: Record<string, { 'x-event': string; examples?: Omit<MessageExample, 'event'>[] }> };
  };
  return Object.values(spec.components.messages).flatMap((m) =>
    (m.examples ?? []).map((e) => ({ ...e, event: m['x-event'] })),
  );
}

/** The arbitrary of contract-valid payloads of `message` (every drawn value checked by ajv). */
export function payloadArbitrary(message: MessageContract): fc.Arbitrary<Record<string, unknown>> {
  const { schema } = allowedOnly(message.payload);
  return arbitraryOf(schema).filter((p) => schemaErrors(message.payload, p).length === 0) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

/**
 * Signs `payload` as the service does: compact JSON body, `X-SVC-Timestamp` = `nowMs` in seconds,
 * `X-SVC-Signature` over `<timestamp>.<raw_body>` with each of `secrets` (two during a rotation, D-047).
 */
export function signDelivery(
  event: string,
  payload: unknown,
  secrets: readonly string[],
  nowMs: number,
  deliveryId: string = randomUUID(),
): GeneratedDelivery {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    event,
    body,
    headers: {
      'X-SVC-Signature': signatureHeader(secrets, timestamp, body),
      'X-SVC-Event': event,
      'X-SVC-Timestamp': timestamp,
      'X-SVC-Delivery': deliveryId,
    },
  };
}

/**
 * The arbitrary of valid deliveries of `message`: a generated payload and a delivery id drawn from the
 * headers schema, signed with `secret` at `nowMs` — with `rotation`, half of them during a rotation,
 * `secret` first of two (D-047). The timestamp is the sender's clock, not drawn: the schema allows any digits, the replay window
 * (spec: 5 minutes) does not (D-194).
 */
export function deliveryArbitrary(message: MessageContract, secret: string, nowMs: number, rotation = true) {
  const deliveryId = arbitraryOf((message.headers.properties as Record<string, Schema>)['X-SVC-Delivery'] as Schema);
  return fc
    .tuple(payloadArbitrary(message), deliveryId, rotation ? fc.boolean() : fc.constant(false))
    .map(([payload, id, rotating]) =>
      signDelivery(message.event, payload, rotating ? [secret, `${secret}-previous`] : [secret], nowMs, String(id)),
    )
    .filter((d) => schemaErrors(message.headers, d.headers).length === 0);
}

/** `count` valid deliveries of every message, one signature each, drawn with `seed` (the receiver-side run). */
export function generatedDeliveries(secret: string, nowMs: number, seed: number, count: number): GeneratedDelivery[] {
  return loadMessages().flatMap((m, i) =>
    fc.sample(deliveryArbitrary(m, secret, nowMs, false), { seed: seed + i, numRuns: count }),
  );
}
