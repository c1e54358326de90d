/**
 * Deliveries the harness sends to an institution's own webhook receiver (the receiver is the target, D-171):
 * contract-valid Payment event payloads (specs/webhooks.asyncapi.yaml), signed as svckit signs them
 * (src/webhooks/signature.ts; spec "Signature rules"), or deliberately spoiled in one way.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { webhookMessageByEvent, webhookSchemaDefs } from '@svckit/sdk/webhooks/schemas';
import { signatureOf } from '../../src/webhooks/signature.ts';

/** The five event types of the contract. */
export const EVENT_TYPES = Object.keys(webhookMessageByEvent) as (keyof typeof webhookMessageByEvent)[];

/** One event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** A delivery ready to send: its raw body and its four X-SVC headers. */
export type Delivery = { body: string; headers: Record<string, string>; event: EventType; deliveryId: string };

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'webhooks', $defs: webhookSchemaDefs });

const TX_REF_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A fresh txRef in the contract's form `PMT-YYYYMMDD-<12 Crockford base32>`. */
function txRef(nowMs: number): string {
  const day = new Date(nowMs).toISOString().slice(0, 10).replaceAll('-', '');
  const tail = [...randomBytes(12)].map((b) => TX_REF_ALPHABET[b % 32]).join('');
  return `PMT-${day}-${tail}`;
}

/** A payload of `event` that validates against the event's message in specs/webhooks.asyncapi.yaml. */
export function paymentPayload(event: EventType, nowMs: number): Record<string, unknown> {
  const base = {
    event,
    uetr: randomUUID(),
    txRef: txRef(nowMs),
    instrAmtCcy: 'EUR',
    instrAmt: 1250.5,
    dbtrInst: 'DEUTDEFFXXX',
    cdtrInst: 'SVCKGB2LXXX',
  };
  const settlement = { settlAmtCcy: 'SVC', settlAmt: 1313.02 };
  const onChain = { onChainTxHash: `0x${randomBytes(32).toString('hex')}` };
  const sttlmTm = new Date(nowMs - 5_000).toISOString();
  switch (event) {
    case 'payment.initiated':
      return { ...base, status: 'INITIATED' };
    case 'payment.rate_locked':
      return { ...base, status: 'RATE_LOCKED', ...settlement };
    case 'payment.settled':
      return { ...base, status: 'SETTLED', ...settlement, ...onChain, sttlmTm };
    case 'payment.failed':
      return { ...base, status: 'FAILED', ...settlement, failRsn: 'broadcast to the chain failed' };
    case 'payment.returned':
      return { ...base, status: 'RETURNED', ...settlement, ...onChain, sttlmTm };
  }
}

/** Problems of a delivery against its message's Headers and Payload schemas (empty when contract-valid). */
export function contractProblems(delivery: Delivery): string[] {
  const message = webhookMessageByEvent[delivery.event];
  const problems: string[] = [];
  for (const [part, value] of [
    ['Headers', delivery.headers],
    ['Payload', JSON.parse(delivery.body) as unknown],
  ] as const) {
    const validate = ajv.getSchema(`webhooks#/$defs/${message}${part}`)!;
    if (!validate(value))
      problems.push(...(validate.errors ?? []).map((e) => `${part.toLowerCase()}${e.instancePath}: ${e.message}`));
  }
  return problems;
}

/** What to sign a delivery with, and when. */
export type Signing = {
  /** The secrets whose signatures X-SVC-Signature lists, in order (D-047: current first). */
  secrets: readonly string[];
  /** The X-SVC-Timestamp, in ms since the epoch (floored to seconds). */
  atMs: number;
  /** The X-SVC-Delivery (default: a fresh UUID, D-039). */
  deliveryId?: string;
};

/**
 * A signed delivery of `payload`: `sha256=<hmac_hex>` per secret over `<timestamp>.<raw_body>` (spec
 * "Signature rules" 1), comma-separated when there are two (D-047).
 */
export function signedDelivery(payload: Record<string, unknown>, signing: Signing): Delivery {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(signing.atMs / 1000));
  const deliveryId = signing.deliveryId ?? randomUUID();
  return {
    body,
    event: payload.event as EventType,
    deliveryId,
    headers: {
      'X-SVC-Signature': signing.secrets.map((secret) => signatureOf(secret, timestamp, body)).join(','),
      'X-SVC-Event': String(payload.event),
      'X-SVC-Timestamp': timestamp,
      'X-SVC-Delivery': deliveryId,
    },
  };
}

/** A secret nobody else holds, of the form svckit's endpoints use (D-060: 32 to 256 printable characters). */
export const strangerSecret = () => `whsec_${randomBytes(27).toString('base64url')}`;
