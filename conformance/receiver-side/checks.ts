/**
 * The `webhooks.receiver.*` checks: an institution's own webhook receiver is the target (D-171). The harness
 * sends it signed, contract-valid deliveries, which it must accept (2xx, spec: "The receiving endpoint must
 * answer with a 2xx status within 10 seconds"), and spoiled ones, which it must refuse (any other answer).
 * Secrets are never part of a reason, a report or a log: only the signatures made with them travel.
 */
import type { Check, CheckVerdict } from '../catalogue.ts';
import { checkDefiner, outcome, Unavailable } from '../checks/define.ts';
import { request } from '../http.ts';
import type { Target } from '../targets/target.ts';
import { generatedDeliveries } from '../engine/asyncapi/messages.ts';
import {
  contractProblems,
  type Delivery,
  EVENT_TYPES,
  type EventType,
  paymentPayload,
  signedDelivery,
  strangerSecret,
} from './deliveries.ts';

/** The receiver under test and what it holds. */
export type ReceiverUnderTest = {
  /** The receiver's HTTPS URL (spec: deliveries go to "HTTPS endpoints registered by the institution"). */
  url: URL;
  /** The secret the receiver verifies with (D-047: the current one). */
  secret: string;
  /** A secret the receiver held before `secret`, whose grace period has ended (D-047); enables two checks. */
  previousSecret?: string;
  /** PEM text of an extra CA that signs the receiver's certificate. */
  caCert?: string;
};

/** spec: "The receiving endpoint must answer with a 2xx status within 10 seconds". */
const ANSWER_WITHIN_MS = 10_000;

/** Deliveries generated from each message's schemas that `accepts_signed` sends besides its fixed ones. */
export const GENERATED_PER_EVENT = 2;

/** D-171: a stale delivery is 6 minutes old, one minute beyond the 5-minute window for clock differences. */
export const STALE_BY_MS = 6 * 60_000;

const defineCheck = checkDefiner({ surface: 'B', needs: [] });

type Answer = { status: number } | { error: string };

/** Sends one delivery (POST, JSON, D-171) and returns the status or why there was none. */
async function send(receiver: ReceiverUnderTest, delivery: Delivery): Promise<Answer> {
  const target: Target = { kind: 'remote', capabilities: new Set(), caCert: receiver.caCert };
  try {
    const res = await request(target, receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...delivery.headers },
      body: delivery.body,
      timeoutMs: ANSWER_WITHIN_MS,
    });
    return { status: res.status };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const is2xx = (answer: Answer) => 'status' in answer && answer.status >= 200 && answer.status < 300;
const shown = (answer: Answer) =>
  'status' in answer ? `answered ${answer.status}` : `gave no answer (${answer.error})`;

/** The problem when a delivery the receiver must accept was not answered 2xx. */
async function mustAccept(receiver: ReceiverUnderTest, delivery: Delivery, what: string): Promise<string[]> {
  const problems = contractProblems(delivery).map((p) => `the harness built an invalid ${what}: ${p}`);
  if (problems.length) return problems;
  const answer = await send(receiver, delivery);
  return is2xx(answer) ? [] : [`${what} (delivery ${delivery.deliveryId}) ${shown(answer)}, expected 2xx`];
}

/** The problem when a delivery the receiver must refuse was answered 2xx (or not at all). */
async function mustRefuse(receiver: ReceiverUnderTest, delivery: Delivery, what: string): Promise<string[]> {
  const answer = await send(receiver, delivery);
  if ('error' in answer)
    return [`${what} (delivery ${delivery.deliveryId}) ${shown(answer)}, expected a non-2xx answer`];
  return is2xx(answer) ? [`${what} (delivery ${delivery.deliveryId}) was accepted with ${answer.status}`] : [];
}

/** A fresh payment.settled delivery signed with `secrets` at `atMs`. */
const settled = (secrets: readonly string[], atMs = Date.now(), deliveryId?: string) =>
  signedDelivery(paymentPayload('payment.settled', atMs), {
    secrets,
    atMs,
    ...(deliveryId ? { deliveryId } : {}),
  });

function previousOf(receiver: ReceiverUnderTest): string {
  if (receiver.previousSecret === undefined)
    throw new Unavailable('needs the receiver\'s retired secret ("--webhook-previous-secret"), which was not given');
  return receiver.previousSecret;
}

const verdictOf = (problems: string[], passReason?: string): CheckVerdict => outcome(problems, passReason);

/** The checks against one receiver. */
export function receiverSideChecks(receiver: ReceiverUnderTest): Check[] {
  const { secret } = receiver;
  return [
    defineCheck({
      id: 'webhooks.receiver.accepts_signed',
      title: 'a signed, contract-valid delivery of each of the five event types is answered 2xx',
      source: {
        quote:
          'The receiving endpoint must answer with a 2xx status within 10 seconds; any other response or a time-out counts as a failure.',
      },
      async run() {
        const problems: string[] = [];
        for (const event of EVENT_TYPES) {
          const now = Date.now();
          problems.push(
            ...(await mustAccept(
              receiver,
              signedDelivery(paymentPayload(event, now), { secrets: [secret], atMs: now }),
              event,
            )),
          );
        }
        // Besides the fixed payloads, deliveries generated from each message's schemas (the engine's, D-194).
        const seed = Date.now() % 1_000_000;
        for (const d of generatedDeliveries(secret, Date.now(), seed, GENERATED_PER_EVENT))
          problems.push(
            ...(await mustAccept(
              receiver,
              { ...d, event: d.event as EventType, deliveryId: d.headers['X-SVC-Delivery'] as string },
              `a generated ${d.event} (seed ${seed})`,
            )),
          );
        return verdictOf(problems);
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.refuses_wrong_signature',
      title: 'a delivery signed with a secret the receiver does not hold is refused',
      source: {
        quote:
          'hmac_hex is the lowercase hex HMAC-SHA256, keyed with the shared secret, of the string <timestamp>.<raw_body>, where timestamp is the X-SVC-Timestamp value and raw_body is the unparsed request body.',
      },
      async run() {
        return verdictOf(
          await mustRefuse(receiver, settled([strangerSecret()]), 'a delivery signed with another secret'),
        );
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.refuses_changed_body',
      title: 'a delivery whose body was changed after signing is refused',
      source: {
        quote:
          'hmac_hex is the lowercase hex HMAC-SHA256, keyed with the shared secret, of the string <timestamp>.<raw_body>, where timestamp is the X-SVC-Timestamp value and raw_body is the unparsed request body.',
      },
      async run() {
        const signed = settled([secret]);
        // The same JSON with a larger amount: still contract-valid, so only the signature can tell.
        const changed = { ...signed, body: signed.body.replace('"settlAmt":1313.02', '"settlAmt":9313.02') };
        if (changed.body === signed.body) throw new Error('the harness could not change the settlAmt of its payload');
        return verdictOf(await mustRefuse(receiver, changed, 'a delivery whose settlAmt was changed after signing'));
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.refuses_stale_timestamp',
      title: 'a correctly signed delivery whose timestamp is 6 minutes old is refused',
      source: {
        quote: 'The receiver rejects a delivery whose timestamp is more than 5 minutes old (replay protection).',
      },
      async run() {
        const stale = settled([secret], Date.now() - STALE_BY_MS);
        return verdictOf(await mustRefuse(receiver, stale, 'a delivery signed 6 minutes ago'));
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.refuses_replay',
      title: 'the same signed delivery sent a second time (same timestamp and signature) is refused',
      source: { decision: 'D-171' },
      async run() {
        const delivery = settled([secret]);
        const first = await mustAccept(receiver, delivery, 'the first sending');
        if (first.length) return verdictOf(first);
        return verdictOf(await mustRefuse(receiver, delivery, 'the identical second sending'));
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.accepts_retry',
      title:
        'a new attempt of an accepted delivery (same X-SVC-Delivery, fresh timestamp and signature) is answered 2xx',
      source: { decision: 'D-171' },
      async run() {
        const now = Date.now();
        const first = settled([secret], now - 2_000);
        const problems = await mustAccept(receiver, first, 'the first attempt');
        if (problems.length) return verdictOf(problems);
        // The dispatcher signs every attempt afresh (src/webhooks/signature.ts deliveryHeaders): same id and body.
        const retry = signedDelivery(JSON.parse(first.body) as Record<string, unknown>, {
          secrets: [secret],
          atMs: now,
          deliveryId: first.deliveryId,
        });
        return verdictOf(await mustAccept(receiver, retry, 'the second attempt'));
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.rotation.receiver_switched',
      title:
        'during a rotation, X-SVC-Signature "sha256=<current>,sha256=<previous>" is accepted by a receiver holding the current secret',
      source: { decision: 'D-047' },
      async run() {
        return verdictOf(
          await mustAccept(
            receiver,
            settled([secret, strangerSecret()]),
            'a delivery signed with its secret first of two',
          ),
        );
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.rotation.receiver_not_switched',
      title:
        'during a rotation, X-SVC-Signature "sha256=<current>,sha256=<previous>" is accepted by a receiver still holding the previous secret',
      source: { decision: 'D-047' },
      async run() {
        return verdictOf(
          await mustAccept(
            receiver,
            settled([strangerSecret(), secret]),
            'a delivery signed with its secret second of two',
          ),
        );
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.rotation.both_signatures',
      title:
        "during the grace period, X-SVC-Signature with the current and the previous secret's signatures is accepted",
      source: { decision: 'D-047' },
      async run() {
        const previous = previousOf(receiver);
        return verdictOf(
          await mustAccept(receiver, settled([secret, previous]), 'a delivery signed with both secrets'),
        );
      },
    }),
    defineCheck({
      id: 'webhooks.receiver.rotation.previous_after_grace',
      title: 'after the grace period, a delivery signed with the previous secret alone is refused',
      source: { decision: 'D-047' },
      async run() {
        const previous = previousOf(receiver);
        return verdictOf(await mustRefuse(receiver, settled([previous]), 'a delivery signed with the retired secret'));
      },
    }),
  ];
}

/** The target the receiver-side run reports: a remote one offering nothing the other checks need. */
export function receiverSideTarget(receiver: ReceiverUnderTest): Target {
  return { kind: 'remote', capabilities: new Set(), ...(receiver.caCert ? { caCert: receiver.caCert } : {}) };
}
