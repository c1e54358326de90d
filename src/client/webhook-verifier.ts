/**
 * Verifying a svckit webhook delivery on the receiver's side (spec "Signature rules"):
 * 1. "hmac_hex is the lowercase hex HMAC-SHA256, keyed with the shared secret, of the string
 *    <timestamp>.<raw_body>, where timestamp is the X-SVC-Timestamp value and raw_body is the unparsed request
 *    body."
 * 2. "The receiver compares the expected and received digests with a constant-time comparison, never string
 *    equality."
 * 3. "The receiver rejects a delivery whose timestamp is more than 5 minutes old (replay protection)." A
 *    timestamp as far in the future is refused too (a clock that ran ahead would otherwise widen the window).
 * During a secret rotation X-SVC-Signature carries `sha256=<hex_current>,sha256=<hex_previous>` (D-047); a
 * delivery is accepted when any listed signature matches any secret the receiver holds. The headers are also
 * held to the Headers schema of specs/webhooks.asyncapi.yaml where a receiver acts on them: X-SVC-Event is one
 * of the five event types and equal to the payload's `event`, X-SVC-Delivery is a UUID (D-039), and at most
 * two signatures are listed.
 *
 * Only the timestamp and the body are under the HMAC: X-SVC-Delivery and X-SVC-Event are not, so a captured
 * delivery sent again under another delivery id verifies. The verified delivery therefore carries a replay key,
 * the SHA-256 of exactly the signed string, for the receiver to refuse a repeat within the replay window (D-224).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type {
  PaymentFailedPayload,
  PaymentInitiatedPayload,
  PaymentRateLockedPayload,
  PaymentReturnedPayload,
  PaymentSettledPayload,
} from '../../generated/webhooks/types.gen.ts';
import { webhookSchemaDefs } from '../../generated/webhooks/schemas.gen.ts';
import { SvcError } from '../errors.ts';

/** The payload of one Payment event, as specs/webhooks.asyncapi.yaml defines it per event type. */
export type PaymentPayload =
  | PaymentInitiatedPayload
  | PaymentRateLockedPayload
  | PaymentSettledPayload
  | PaymentFailedPayload
  | PaymentReturnedPayload;

/** Why a delivery was refused. */
export type WebhookRejection =
  | 'MISSING_HEADER'
  | 'MALFORMED_TIMESTAMP'
  | 'STALE_TIMESTAMP'
  | 'FUTURE_TIMESTAMP'
  | 'MALFORMED_HEADER'
  | 'MALFORMED_SIGNATURE'
  | 'SIGNATURE_MISMATCH'
  | 'MALFORMED_BODY'
  | 'EVENT_MISMATCH';

/** Thrown by {@link verifyWebhook}; `code` says why. Answer such a delivery with a 4xx and do not process it. */
export class WebhookVerificationError extends SvcError<WebhookRejection> {
  override name = 'WebhookVerificationError';
}

/** A delivery that passed verification. */
export type VerifiedWebhook = {
  /** X-SVC-Event, equal to the payload's `event`. */
  event: string;
  /**
   * X-SVC-Delivery: the same on every attempt, and not covered by the signature (spec: the signed string is
   * `<timestamp>.<raw_body>`), so anyone who saw a delivery can resend it under another id. Use it to match the
   * sender's delivery records, never to refuse a repeat: de-duplicate on {@link VerifiedWebhook.replayKey} and on
   * the payload (D-224).
   */
  deliveryId: string;
  /** X-SVC-Timestamp in Unix seconds. */
  timestamp: number;
  /**
   * The lowercase hex SHA-256 of the signed string `<timestamp>.<raw_body>`: the same for a delivery resent with
   * any other X-SVC-Delivery or X-SVC-Signature list, different for every attempt of the sender (each attempt is
   * signed with a fresh timestamp). Remember it until `timestamp` + the tolerance and refuse a repeat (D-224).
   */
  replayKey: string;
  /**
   * The parsed Payment event payload. Its type is the contract's: the signature proves the sender, whose
   * payloads follow specs/webhooks.asyncapi.yaml; the verifier checks the signature, not the schema.
   */
  payload: PaymentPayload;
};

/** Request headers as fetch (`Headers`) or Node (`IncomingHttpHeaders`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Options of {@link verifyWebhook}. */
export type VerifyOptions = {
  /** The replay window in seconds (spec: 5 minutes). Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock in ms since the epoch, or a function giving it. Default Date.now(). */
  now?: number | (() => number);
};

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
/** D-047: the current signature, and the previous one during a rotation. */
const MAX_SIGNATURES = 2;
/** D-039: X-SVC-Delivery is a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_TYPES: readonly string[] = webhookSchemaDefs.PaymentEventType.enum;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Verifies one delivery: the X-SVC-Signature against `secrets` (one, or several during a rotation) over
 * `<X-SVC-Timestamp>.<rawBody>`, in constant time, and the timestamp against the replay window. `rawBody` must
 * be the body exactly as received, before any JSON parsing. Returns the verified delivery; throws
 * {@link WebhookVerificationError} otherwise.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifiedWebhook {
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = typeof options.now === 'function' ? options.now() : (options.now ?? Date.now());
  const signatureText = header(headers, 'x-svc-signature');
  const timestampText = header(headers, 'x-svc-timestamp');
  const event = header(headers, 'x-svc-event');
  const deliveryId = header(headers, 'x-svc-delivery');
  for (const [name, value] of [
    ['X-SVC-Signature', signatureText],
    ['X-SVC-Timestamp', timestampText],
    ['X-SVC-Event', event],
    ['X-SVC-Delivery', deliveryId],
  ] as const) {
    if (!value) throw new WebhookVerificationError('MISSING_HEADER', `${name} is missing`);
  }
  if (!EVENT_TYPES.includes(event!))
    throw new WebhookVerificationError(
      'MALFORMED_HEADER',
      `X-SVC-Event expected one of ${EVENT_TYPES.join(', ')}, got "${event!.slice(0, 64)}"`,
    );
  if (!UUID.test(deliveryId!))
    throw new WebhookVerificationError(
      'MALFORMED_HEADER',
      `X-SVC-Delivery expected a UUID, got "${deliveryId!.slice(0, 64)}"`,
    );
  if (!/^\d{1,12}$/.test(timestampText!))
    throw new WebhookVerificationError(
      'MALFORMED_TIMESTAMP',
      `X-SVC-Timestamp expected Unix seconds, got "${timestampText}"`,
    );
  const timestamp = Number(timestampText);
  const age = Math.floor(nowMs / 1000) - timestamp;
  if (age > tolerance)
    throw new WebhookVerificationError('STALE_TIMESTAMP', `X-SVC-Timestamp is ${age} s old, more than ${tolerance} s`);
  if (-age > tolerance)
    throw new WebhookVerificationError(
      'FUTURE_TIMESTAMP',
      `X-SVC-Timestamp is ${-age} s ahead, more than ${tolerance} s`,
    );
  // D-047: one `sha256=<hex>`, or a comma-separated list during a rotation.
  const given = signatureText!.split(',').map((part) => SIGNATURE.exec(part.trim())?.[1]);
  if (given.length === 0 || given.length > MAX_SIGNATURES || given.some((hex) => hex === undefined)) {
    throw new WebhookVerificationError(
      'MALFORMED_SIGNATURE',
      'X-SVC-Signature expected sha256=<64 lower-case hex digits>, optionally two separated by a comma',
    );
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${timestampText}.`, 'utf8'), body]);
  let matched = false;
  // Every pair is compared, match or not, with timingSafeEqual: no early exit reveals which one matched.
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = createHmac('sha256', secret).update(signed).digest();
    for (const hex of given) matched = timingSafeEqual(expected, Buffer.from(hex!, 'hex')) || matched;
  }
  if (!matched)
    throw new WebhookVerificationError(
      'SIGNATURE_MISMATCH',
      'no X-SVC-Signature matches a secret held by the receiver',
    );
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('MALFORMED_BODY', 'the body is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new WebhookVerificationError('MALFORMED_BODY', 'the body is not a JSON object');
  const named = (payload as { event?: unknown }).event;
  if (named !== event)
    throw new WebhookVerificationError(
      'EVENT_MISMATCH',
      `X-SVC-Event "${event}" differs from the payload's event ${JSON.stringify(named)?.slice(0, 64)}`,
    );
  // D-224: the replay key covers exactly what the HMAC covers, so it is as unforgeable as the signature.
  const replayKey = createHash('sha256').update(signed).digest('hex');
  return { event: event!, deliveryId: deliveryId!, timestamp, replayKey, payload: payload as PaymentPayload };
}
