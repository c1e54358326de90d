// Receiver-side webhook checks (surface B, spec "Webhook events (B)"): the harness's HTTPS receiver gets the
// events the target emits for a transfer, a cross-currency pacs.008 payment with its return, and a payment
// that fails, and checks every delivery: headers, signature, payload against the AsyncAPI schemas, and that
// the event type matches the payload. Retries and the schedule are in retry.ts.
import type { Check, CheckContext } from '../../catalogue.ts';
import type { Target } from '../../targets/target.ts';
import type { Received } from '../../webhooks/receiver.ts';
import { adminJson } from '../institutional/support.ts';
import { outcome } from '../define.ts';
import { webhookSchemaDefs } from '@svckit/sdk/webhooks/schemas';
import {
  defineCheck,
  deliveriesOf,
  dropEndpoint,
  pacs008,
  parseBody,
  partiesFor,
  registerEndpoint,
  schemaProblems,
  signatureProblems,
  transfer,
  type Endpoint,
} from './support.ts';

/** The deliveries of one scenario, in arrival order, with the endpoint's secret. */
type Scenario = { endpoint: Endpoint; received: Received[]; uetr: string; detail: Record<string, unknown> };
type Scenarios = { transfer: Scenario; crossCurrency: Scenario; failed: Scenario };

const scenarios = new WeakMap<Target, Promise<Scenarios>>();

const eventsOf = (received: Received[]) => received.map((r) => parseBody(r).event as string);
const has =
  (...events: string[]) =>
  (received: Received[]) =>
    events.every((e) => eventsOf(received).includes(e));

/** Runs the three payment scenarios once per target against one endpoint subscribed to every event type. */
function scenariosFor(target: Target): Promise<Scenarios> {
  let made = scenarios.get(target);
  if (!made) {
    made = (async () => {
      const p = await partiesFor(target);
      const endpoint = await registerEndpoint(target);
      try {
        // D-021: "POST /transfers emits payment.initiated when accepted, payment.settled when confirmed"
        const created = await transfer(target, '2.50');
        const settled = await deliveriesOf(
          endpoint,
          (b) => b.onChainTxHash === created.txHash,
          (r) => r.length >= 1,
        );
        const transferUetr = parseBody(settled[0]!).uetr as string;
        const transferDeliveries = await deliveriesOf(
          endpoint,
          (b) => b.uetr === transferUetr,
          has('payment.initiated', 'payment.settled'),
        );
        // D-053: initiated → rate_locked → settled; D-062: an administrator returns it → payment.returned.
        const cross = await pacs008(target, '1250.50', 'EUR');
        await deliveriesOf(
          endpoint,
          (b) => b.uetr === cross.uetr,
          has('payment.initiated', 'payment.rate_locked', 'payment.settled'),
        );
        const returned = await adminJson<Record<string, unknown>>(
          target,
          'POST',
          `/payments/${cross.uetr}/return`,
          { reason: 'svckit conformance return' },
          200,
        );
        const crossDeliveries = await deliveriesOf(
          endpoint,
          (b) => b.uetr === cross.uetr,
          has('payment.initiated', 'payment.rate_locked', 'payment.settled', 'payment.returned'),
        );
        // An unfunded settlement account: the settlement is refused, payment.failed carries failRsn.
        const failing = await pacs008(target, '10.00', 'EUR', p.empty);
        const failedDeliveries = await deliveriesOf(
          endpoint,
          (b) => b.uetr === failing.uetr,
          has('payment.initiated', 'payment.failed'),
        );
        return {
          transfer: { endpoint, received: transferDeliveries, uetr: transferUetr, detail: { transfer: created } },
          crossCurrency: {
            endpoint,
            received: crossDeliveries,
            uetr: cross.uetr,
            detail: { accepted: cross, returned },
          },
          failed: { endpoint, received: failedDeliveries, uetr: failing.uetr, detail: { accepted: failing } },
        };
      } finally {
        await dropEndpoint(target, endpoint);
      }
    })();
    made.catch(() => scenarios.delete(target));
    scenarios.set(target, made);
  }
  return made;
}

/** Every delivery of the three scenarios. */
async function allDeliveries(ctx: CheckContext): Promise<{ received: Received[]; secret: string }> {
  const s = await scenariosFor(ctx.target);
  return {
    received: [...s.transfer.received, ...s.crossCurrency.received, ...s.failed.received],
    secret: s.transfer.endpoint.secret,
  };
}

const payloadsOf = (scenario: Scenario) => scenario.received.map(parseBody);

/** Header, signature, schema and event checks over every delivery. */
function deliveryChecks(): Check[] {
  return [
    defineCheck({
      id: 'webhooks.delivery.headers',
      title:
        'Every delivery carries X-SVC-Signature, X-SVC-Event, X-SVC-Timestamp (Unix seconds) and X-SVC-Delivery as the contract defines them',
      source: { quote: 'X-SVC-Delivery | delivery job identifier' },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        const problems = received.flatMap((r) => schemaProblems(r).filter((p) => p.includes(' headers')));
        for (const r of received)
          if (!/^\d+$/.test(r.headers['x-svc-timestamp'] ?? ''))
            problems.push(`X-SVC-Timestamp ${JSON.stringify(r.headers['x-svc-timestamp'])} is not Unix seconds`);
        return outcome(problems, `${received.length} deliveries`);
      },
    }),
    defineCheck({
      id: 'webhooks.delivery.signature',
      title:
        'X-SVC-Signature is sha256=<lowercase hex HMAC-SHA256 of "<timestamp>.<raw_body>"> under the shared secret',
      source: {
        quote:
          'hmac_hex is the lowercase hex HMAC-SHA256, keyed with the shared secret, of the string <timestamp>.<raw_body>, where timestamp is the X-SVC-Timestamp value and raw_body is the unparsed request body.',
      },
      async run(ctx) {
        const { received, secret } = await allDeliveries(ctx);
        // The replay window is checked separately (webhooks.delivery.fresh_timestamp): here only the HMAC.
        return outcome(
          received.flatMap((r) => signatureProblems(r, [secret], Number(r.headers['x-svc-timestamp']) * 1000)),
          `${received.length} deliveries`,
        );
      },
    }),
    defineCheck({
      id: 'webhooks.delivery.fresh_timestamp',
      title: 'Every delivery is signed with a timestamp within 5 minutes of its arrival, so receivers accept it',
      source: {
        quote: 'The receiver rejects a delivery whose timestamp is more than 5 minutes old (replay protection).',
      },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        const problems = received
          .map((r) => ({ r, skew: Math.floor(r.receivedAt / 1000) - Number(r.headers['x-svc-timestamp']) }))
          .filter(({ skew }) => Math.abs(skew) > 300)
          .map(({ r, skew }) => `delivery ${r.headers['x-svc-delivery']}: signed ${skew} s before it arrived`);
        return outcome(problems, `${received.length} deliveries`);
      },
    }),
    defineCheck({
      id: 'webhooks.delivery.payload_schema',
      title: "Every body is the Payment event payload of its event's message in webhooks.asyncapi.yaml",
      source: { quote: 'The body is the Payment event payload (see Resources and their fields).' },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        return outcome(
          received.flatMap((r) => schemaProblems(r).filter((p) => p.includes(' payload'))),
          `${received.length} deliveries`,
        );
      },
    }),
    defineCheck({
      id: 'webhooks.delivery.event_matches_payload',
      title: "X-SVC-Event equals the payload's event, and status is that event's status (D-007)",
      source: { quote: 'X-SVC-Event | event type, for example payment.settled' },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        const status: Record<string, string> = {
          'payment.initiated': 'INITIATED',
          'payment.rate_locked': 'RATE_LOCKED',
          'payment.settled': 'SETTLED',
          'payment.failed': 'FAILED',
          'payment.returned': 'RETURNED',
        };
        const problems: string[] = [];
        for (const r of received) {
          const body = parseBody(r);
          if (body.event !== r.headers['x-svc-event'])
            problems.push(`X-SVC-Event ${r.headers['x-svc-event']} but payload event ${String(body.event)}`);
          if (body.status !== status[String(body.event)])
            problems.push(`event ${String(body.event)} with status ${String(body.status)}`);
        }
        return outcome(problems, `${received.length} deliveries`);
      },
    }),
    defineCheck({
      id: 'webhooks.delivery.post_json',
      title: 'A delivery is a POST with Content-Type application/json; charset=utf-8 and a compact JSON body',
      source: { decision: 'D-020' },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        const problems: string[] = [];
        for (const r of received) {
          if (r.method !== 'POST') problems.push(`method ${r.method}`);
          if (!/^application\/json;\s*charset=utf-8$/i.test(r.headers['content-type'] ?? ''))
            problems.push(`Content-Type ${JSON.stringify(r.headers['content-type'])}`);
          if (JSON.stringify(parseBody(r)) !== r.rawBody)
            problems.push(`body is not compact JSON: ${r.rawBody.slice(0, 80)}`);
        }
        return outcome(problems, `${received.length} deliveries`);
      },
    }),
  ];
}

/** Payload field and lifecycle checks. */
function payloadChecks(): Check[] {
  return [
    defineCheck({
      id: 'webhooks.payload.settled_fields',
      title: 'payment.settled carries every payload field except failRsn',
      source: { quote: 'A payment.settled payload shows every field above except failRsn.' },
      async run(ctx) {
        const s = await scenariosFor(ctx.target);
        // "every field above": the payload table, i.e. the contract's PaymentEventPayload properties.
        const fields = Object.keys(webhookSchemaDefs.PaymentEventPayload.properties).filter((f) => f !== 'failRsn');
        const settled = [...payloadsOf(s.transfer), ...payloadsOf(s.crossCurrency)].filter(
          (b) => b.event === 'payment.settled',
        );
        const problems = settled.flatMap((b) => [
          ...fields.filter((f) => !(f in b)).map((f) => `payment.settled of ${String(b.uetr)} lacks ${f}`),
          ...('failRsn' in b ? [`payment.settled of ${String(b.uetr)} carries failRsn`] : []),
        ]);
        return outcome(
          settled.length ? problems : ['no payment.settled was received'],
          `${settled.length} payment.settled deliveries`,
        );
      },
    }),
    defineCheck({
      id: 'webhooks.payload.uetr',
      title: "uetr is a UUID, the same in every event of one payment, and the pacs.008 instruction's UETR",
      source: { quote: 'UUID-format end-to-end payment identifier' },
      async run(ctx) {
        const s = await scenariosFor(ctx.target);
        const problems: string[] = [];
        for (const scenario of [s.transfer, s.crossCurrency, s.failed]) {
          for (const b of payloadsOf(scenario)) {
            if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(b.uetr)))
              problems.push(`uetr ${JSON.stringify(b.uetr)} is not a UUID`);
            if (b.uetr !== scenario.uetr) problems.push(`uetr ${String(b.uetr)}, expected ${scenario.uetr}`);
          }
        }
        return outcome(problems);
      },
    }),
    defineCheck({
      id: 'webhooks.payload.tx_ref',
      title: 'The payment txRef is PMT-YYYYMMDD- plus 12 Crockford base32 characters, one per payment',
      source: { decision: 'D-034' },
      async run(ctx) {
        const s = await scenariosFor(ctx.target);
        const problems: string[] = [];
        for (const scenario of [s.transfer, s.crossCurrency, s.failed]) {
          const refs = new Set(payloadsOf(scenario).map((b) => String(b.txRef)));
          if (refs.size !== 1) problems.push(`payment ${scenario.uetr} has txRefs ${[...refs].join(', ')}`);
          for (const ref of refs)
            if (!/^PMT-[0-9]{8}-[0-9A-HJKMNP-TV-Z]{12}$/.test(ref)) problems.push(`txRef ${ref} does not follow D-034`);
        }
        const accepted = s.crossCurrency.detail.accepted as { txRef: string };
        if (!payloadsOf(s.crossCurrency).every((b) => b.txRef === accepted.txRef))
          problems.push(`the events' txRef differs from the 202 answer's ${accepted.txRef}`);
        return outcome(problems);
      },
    }),
    defineCheck({
      id: 'webhooks.payload.bic',
      title:
        'dbtrInst and cdtrInst have bank-identifier-code shape (the pacs.008 agents, or the platform BIC for transfers)',
      source: { quote: 'debtor institution identifier (bank-identifier-code shape)' },
      async run(ctx) {
        const { received } = await allDeliveries(ctx);
        const bic = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;
        const problems = received
          .map(parseBody)
          .flatMap((b) =>
            ['dbtrInst', 'cdtrInst'].filter((f) => !bic.test(String(b[f]))).map((f) => `${f} ${JSON.stringify(b[f])}`),
          );
        const cross = (await scenariosFor(ctx.target)).crossCurrency;
        if (!payloadsOf(cross).every((b) => b.dbtrInst === 'DEUTDEFFXXX'))
          problems.push('dbtrInst of the pacs.008 payment is not its dbtrAgt DEUTDEFFXXX');
        return outcome(problems);
      },
    }),
    defineCheck({
      id: 'webhooks.events.transfer',
      title:
        'POST /transfers emits payment.initiated, then payment.settled with the transaction hash and settlement time',
      source: { decision: 'D-021' },
      async run(ctx) {
        const s = (await scenariosFor(ctx.target)).transfer;
        const events = eventsOf(s.received);
        const created = s.detail.transfer as { txHash: string };
        const settled = payloadsOf(s).find((b) => b.event === 'payment.settled')!;
        const problems: string[] = [];
        // Deliveries are independent jobs: their arrival order is not promised (D-104); each carries its status.
        if (!events.includes('payment.initiated') || !events.includes('payment.settled'))
          problems.push(`events arrived as ${events.join(', ')}`);
        if (settled.onChainTxHash !== created.txHash)
          problems.push(`onChainTxHash ${String(settled.onChainTxHash)}, the transfer's txHash is ${created.txHash}`);
        if (settled.instrAmt !== 2.5 || settled.settlAmt !== 2.5)
          problems.push(
            `amounts ${String(settled.instrAmt)}/${String(settled.settlAmt)}, expected 2.5 (same currency, D-049)`,
          );
        return outcome(problems, events.join(' → '));
      },
    }),
    defineCheck({
      id: 'webhooks.events.pacs008',
      title: 'A cross-currency pacs.008 payment emits initiated, rate_locked (settlement amount fixed), then settled',
      source: { decision: 'D-053' },
      async run(ctx) {
        const s = (await scenariosFor(ctx.target)).crossCurrency;
        const events = eventsOf(s.received).filter((e) => e !== 'payment.returned');
        const problems: string[] = [];
        if ([...events].sort().join(',') !== 'payment.initiated,payment.rate_locked,payment.settled')
          problems.push(`events arrived as ${events.join(', ')}`);
        const initiated = payloadsOf(s).find((b) => b.event === 'payment.initiated');
        if (initiated && ('settlAmt' in initiated || initiated.instrAmtCcy !== 'EUR' || initiated.instrAmt !== 1250.5))
          problems.push(`payment.initiated ${JSON.stringify(initiated)}`);
        const locked = payloadsOf(s).find((b) => b.event === 'payment.rate_locked');
        const settled = payloadsOf(s).find((b) => b.event === 'payment.settled');
        if (!locked || typeof locked.settlAmt !== 'number' || settled?.settlAmt !== locked.settlAmt)
          problems.push('the settlement amount fixed at rate_locked is not the one settled');
        return outcome(problems, events.join(' → '));
      },
    }),
    defineCheck({
      id: 'webhooks.events.failed',
      title: 'A payment whose settlement fails emits payment.failed with failRsn',
      source: { decision: 'D-021' },
      async run(ctx) {
        const s = (await scenariosFor(ctx.target)).failed;
        const failed = payloadsOf(s).find((b) => b.event === 'payment.failed');
        return outcome(
          failed && typeof failed.failRsn === 'string' && failed.failRsn
            ? []
            : [`payment.failed without failRsn: ${JSON.stringify(failed)}`],
          String(failed?.failRsn),
        );
      },
    }),
    defineCheck({
      id: 'webhooks.events.returned',
      title:
        'Returning a settled payment answers RETURNED with returnTxHash and emits payment.returned naming the original settlement',
      source: { decision: 'D-062' },
      async run(ctx) {
        const s = (await scenariosFor(ctx.target)).crossCurrency;
        const returned = s.detail.returned as { status?: string; returnTxHash?: string };
        const settled = payloadsOf(s).find((b) => b.event === 'payment.settled');
        const event = payloadsOf(s).find((b) => b.event === 'payment.returned');
        const problems: string[] = [];
        if (returned.status !== 'RETURNED' || !returned.returnTxHash)
          problems.push(`the return answered ${JSON.stringify(returned)}`);
        if (!event) problems.push('no payment.returned arrived');
        else if (event.onChainTxHash !== settled?.onChainTxHash || event.sttlmTm !== settled?.sttlmTm)
          problems.push('payment.returned does not name the original settlement (D-073)');
        return outcome(problems);
      },
    }),
  ];
}

/** The delivery and payload checks of the three payment scenarios. */
export function webhookDeliveryChecks(): Check[] {
  return [...deliveryChecks(), ...payloadChecks()];
}
