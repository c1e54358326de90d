/**
 * Signing a delivery (spec "Signature rules"; D-047). spec: "hmac_hex is the lowercase hex HMAC-SHA256,
 * keyed with the shared secret, of the string <timestamp>.<raw_body>, where timestamp is the X-SVC-Timestamp
 * value and raw_body is the unparsed request body."
 */
import { createHmac } from 'node:crypto';

/** `sha256=<hmac_hex>` of one secret over `<timestamp>.<raw_body>`. */
export function signatureOf(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/**
 * The X-SVC-Signature value: one signature, or during a rotation's grace period two, current first,
 * comma-separated (D-047: `sha256=<hex_current>,sha256=<hex_previous>`).
 */
export function signatureHeader(secrets: readonly string[], timestamp: string, rawBody: string): string {
  return secrets.map((secret) => signatureOf(secret, timestamp, rawBody)).join(',');
}

/** The four X-SVC headers of one attempt, signed now: a fresh timestamp and signature for every attempt. */
export function deliveryHeaders(input: {
  deliveryId: string;
  event: string;
  body: string;
  secrets: readonly string[];
  nowMs: number;
}): Record<string, string> {
  // spec: "X-SVC-Timestamp | Unix time in seconds"
  const timestamp = String(Math.floor(input.nowMs / 1000));
  return {
    'X-SVC-Signature': signatureHeader(input.secrets, timestamp, input.body),
    'X-SVC-Event': input.event,
    'X-SVC-Timestamp': timestamp,
    'X-SVC-Delivery': input.deliveryId,
  };
}
