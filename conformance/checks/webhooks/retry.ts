// Webhook retries seen from the receiver (spec "Retry policy", "Webhook delivery (B)"): the receiver answers
// 500 (or hangs, or redirects) and then 200. On the in-process reference stack the whole schedule runs on its
// injectable clock; against an external target only what real time shows (attempts 1 and 2) is checked, and
// the checks that need more say so in their skip reason (a skip is never a pass).
import type { Check, CheckContext } from '../../catalogue.ts';
import type { Target } from '../../targets/target.ts';
import type { Received } from '../../webhooks/receiver.ts';
import { adminCall, adminJson, sleep, smallAmount } from '../institutional/support.ts';
import { outcome } from '../define.ts';
import {
  advance,
  defineCheck,
  dropEndpoint,
  newSecret,
  partiesFor,
  receiverFor,
  registerEndpoint,
  registerEndpointCleanup,
  signatureProblems,
  targetNow,
  transfer,
  type Endpoint,
} from './support.ts';

/** spec: "| 2 | 30 seconds |", "| 3 | 5 minutes |", "| 4 | 30 minutes |", "| 5 | 2 hours; final attempt, then the delivery is DEAD |". */
const DELAYS_MS = [0, 30_000, 300_000, 1_800_000, 7_200_000];
/** Slack for an external target's dispatcher (polling, network) beyond a delay, in real time. */
const REAL_TIME_SLACK_MS = 20_000;

const EXTERNAL_SCHEDULE =
  "the full schedule takes 2 h 35 min of real time and an external target's clock cannot be moved; against it only attempts 1 and 2 are observable (webhooks.retry.second_attempt, webhooks.retry.timeout, webhooks.retry.redirect). Run on the reference target to verify the whole schedule through its injectable clock.";

type DeliveryView = {
  id: string;
  status: string;
  round: number;
  attempts: {
    round: number;
    number: number;
    startedAt: string;
    durationMs: number;
    responseStatus: number | null;
    outcome: string;
  }[];
};

/** An endpoint for payment.initiated only, scripted by `answer(nth)`, and the first delivery of a new transfer. */
async function firstAttempt(
  ctx: CheckContext,
  answer: (nth: number) => number | 'hang',
): Promise<{ endpoint: Endpoint; first: Received }> {
  const endpoint = await registerEndpoint(ctx.target, {
    events: ['payment.initiated'],
    responder: (r) => answer(r.nth),
  });
  await transfer(ctx.target, smallAmount());
  const [first] = await endpoint.receiver.waitFor(endpoint.path, (all) => all.length >= 1, 30_000);
  return { endpoint, first: first! };
}

/** The attempts of delivery `id` so far. */
const attemptsOf = (endpoint: Endpoint, id: string) =>
  endpoint.receiver.deliveries(endpoint.path).filter((r) => r.headers['x-svc-delivery'] === id);

/**
 * Waits for attempt `count + 1` of `id`, due `delayMs` after the previous failure. On the reference target the
 * clock is moved to 1 s before the due time (nothing may arrive), then past it; elsewhere real time passes.
 * Returns the new attempt and any attempt that came early.
 */
async function nextAttempt(
  ctx: CheckContext,
  endpoint: Endpoint,
  id: string,
  delayMs: number,
): Promise<{ attempt: Received; early: boolean }> {
  const count = attemptsOf(endpoint, id).length;
  let early = false;
  if (ctx.target.reference) {
    // The delay runs from the end of the failed attempt (D-052): the clock moves only once the target has
    // recorded that end, or the jump would count as the attempt's own duration.
    await recorded(ctx.target, id, count);
    advance(ctx.target, delayMs - 1000);
    await sleep(400);
    early = attemptsOf(endpoint, id).length > count;
    advance(ctx.target, 1200);
  }
  const timeout = ctx.target.reference ? 15_000 : delayMs + REAL_TIME_SLACK_MS;
  await endpoint.receiver.waitFor(endpoint.path, () => attemptsOf(endpoint, id).length > count, timeout);
  return { attempt: attemptsOf(endpoint, id)[count]!, early };
}

/** Waits until the admin API lists `count` attempts of delivery `id`. */
async function recorded(target: Target, id: string, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await deliveryView(target, id)).attempts.length < count) {
    if (Date.now() > deadline) throw new Error(`attempt ${count} of ${id} was not recorded within 15 s`);
    await sleep(25);
  }
}

/** Problems with a retry: same X-SVC-Delivery, a fresh timestamp and a valid signature ("Every attempt gets a fresh timestamp and signature"). */
function retryProblems(previous: Received, next: Received, secret: string, target: Target): string[] {
  // The replay window is judged at the attempt's arrival (spec: "more than 5 minutes old").
  const problems = signatureProblems(next, [secret], next.receivedAt);
  void target;
  if (next.headers['x-svc-delivery'] !== previous.headers['x-svc-delivery'])
    problems.push('X-SVC-Delivery changed between attempts (D-039: "the same on every attempt")');
  if (Number(next.headers['x-svc-timestamp']) <= Number(previous.headers['x-svc-timestamp']))
    problems.push(`attempt ${next.nth} reused timestamp ${next.headers['x-svc-timestamp']}`);
  if (next.rawBody !== previous.rawBody) problems.push('the body changed between attempts');
  return problems;
}

/** Nothing more arrives for `id` (reference: 3 hours of clock; external: a few seconds). */
async function noMoreAttempts(ctx: CheckContext, endpoint: Endpoint, id: string): Promise<string[]> {
  const count = attemptsOf(endpoint, id).length;
  if (ctx.target.reference) await recorded(ctx.target, id, count);
  advance(ctx.target, 3 * 3600_000);
  await sleep(ctx.target.reference ? 600 : 3000);
  const now = attemptsOf(endpoint, id).length;
  return now > count ? [`${now - count} more attempt(s) after the delivery ended`] : [];
}

const deliveryView = (target: Target, id: string) =>
  adminJson<DeliveryView>(target, 'GET', `/webhooks/deliveries/${id}`, undefined, 200);

/** A delivery driven to DEAD through the whole schedule (reference only), shared by the schedule and redelivery checks. */
const dead = new WeakMap<
  Target,
  Promise<{
    endpoint: Endpoint;
    attempts: Received[];
    early: number[];
    view: DeliveryView;
    after: string[];
    setAnswer(status: number): void;
  }>
>();

function deadDelivery(ctx: CheckContext) {
  let made = dead.get(ctx.target);
  if (!made) {
    made = (async () => {
      let status = 500;
      const { endpoint, first } = await firstAttempt(ctx, () => status);
      const id = first.headers['x-svc-delivery']!;
      const early: number[] = [];
      for (let n = 2; n <= 5; n++) {
        const next = await nextAttempt(ctx, endpoint, id, DELAYS_MS[n - 1]!);
        if (next.early) early.push(n);
      }
      const after = await noMoreAttempts(ctx, endpoint, id);
      const view = await deliveryView(ctx.target, id);
      return {
        endpoint,
        attempts: attemptsOf(endpoint, id),
        early,
        view,
        after,
        setAnswer: (s: number) => (status = s),
      };
    })();
    made.catch(() => dead.delete(ctx.target));
    dead.set(ctx.target, made);
  }
  return made;
}

/** The retry checks. */
export function webhookRetryChecks(): Check[] {
  return [
    defineCheck({
      id: 'webhooks.retry.second_attempt',
      // A remote target's second attempt comes 30 s after the first (spec retry schedule): D-181 allows for it.
      deadlineMs: 120_000,
      title:
        'A 500 is a failure: the same delivery comes again 30 s later, freshly signed; after a 200 nothing more comes',
      source: { quote: 'next attempt after the delay in the retry table' },
      async run(ctx) {
        const { endpoint, first } = await firstAttempt(ctx, (nth) => (nth === 1 ? 500 : 200));
        try {
          const id = first.headers['x-svc-delivery']!;
          const { attempt, early } = await nextAttempt(ctx, endpoint, id, DELAYS_MS[1]!);
          const problems = retryProblems(first, attempt, endpoint.secret, ctx.target);
          if (early) problems.push('attempt 2 came before 30 s had passed');
          if (!ctx.target.reference && attempt.receivedAt - first.receivedAt < DELAYS_MS[1]! - 1000)
            problems.push(`attempt 2 came ${attempt.receivedAt - first.receivedAt} ms after attempt 1`);
          problems.push(...(await noMoreAttempts(ctx, endpoint, id)));
          const view = await deliveryView(ctx.target, id);
          if (view.status !== 'delivered' || view.attempts.length !== 2)
            problems.push(
              `the admin API shows ${view.status} with ${view.attempts.length} attempts, expected delivered with 2`,
            );
          return outcome(
            problems,
            `attempt 2 after ${attempt.receivedAt - first.receivedAt} ms${ctx.target.reference ? ' of the target clock' : ''}`,
          );
        } finally {
          await dropEndpoint(ctx.target, endpoint);
        }
      },
    }),
    defineCheck({
      id: 'webhooks.retry.timeout',
      // A remote target's second attempt comes 30 s after the first (spec retry schedule): D-181 allows for it.
      deadlineMs: 120_000,
      title: 'A receiver that does not answer within 10 s counts as a failure; the delivery is retried after 30 s',
      source: {
        quote:
          'The receiving endpoint must answer with a 2xx status within 10 seconds; any other response or a time-out counts as a failure.',
      },
      async run(ctx) {
        const { endpoint, first } = await firstAttempt(ctx, (nth) => (nth === 1 ? 'hang' : 200));
        try {
          const id = first.headers['x-svc-delivery']!;
          // Past the limit on the target's clock; the dispatcher gives up on attempt 1.
          advance(ctx.target, 10_500);
          if (ctx.target.reference) await sleep(300);
          const { attempt } = await nextAttempt(ctx, endpoint, id, DELAYS_MS[1]! + (ctx.target.reference ? 0 : 10_000));
          endpoint.receiver.releaseHung();
          const problems = retryProblems(first, attempt, endpoint.secret, ctx.target);
          const view = await deliveryView(ctx.target, id);
          const firstAttemptView = view.attempts[0];
          if (firstAttemptView?.outcome !== 'failure' || firstAttemptView.responseStatus !== null)
            problems.push(`attempt 1 is recorded as ${JSON.stringify(firstAttemptView)}`);
          if (view.status !== 'delivered') problems.push(`the delivery is ${view.status} after a 200 to attempt 2`);
          return outcome(problems, `attempt 1 recorded after ${firstAttemptView?.durationMs} ms`);
        } finally {
          endpoint.receiver.releaseHung();
          await dropEndpoint(ctx.target, endpoint);
        }
      },
    }),
    defineCheck({
      id: 'webhooks.retry.redirect',
      // A remote target's second attempt comes 30 s after the first (spec retry schedule): D-181 allows for it.
      deadlineMs: 120_000,
      title: 'A 3xx is a failure (redirects are not followed): the delivery is retried',
      source: { decision: 'D-020' },
      async run(ctx) {
        const { endpoint, first } = await firstAttempt(ctx, (nth) => (nth === 1 ? 302 : 200));
        try {
          const id = first.headers['x-svc-delivery']!;
          const { attempt } = await nextAttempt(ctx, endpoint, id, DELAYS_MS[1]!);
          return outcome(retryProblems(first, attempt, endpoint.secret, ctx.target));
        } finally {
          await dropEndpoint(ctx.target, endpoint);
        }
      },
    }),
    defineCheck({
      id: 'webhooks.retry.schedule',
      title:
        'Retries come 30 s, 5 min, 30 min and 2 h after each failure, freshly signed; after the fifth failure the delivery is DEAD',
      source: { quote: '2 hours; final attempt, then the delivery is DEAD' },
      async run(ctx) {
        if (!ctx.target.reference) return { status: 'skipped', reason: EXTERNAL_SCHEDULE };
        const { attempts, early, view, after, endpoint } = await deadDelivery(ctx);
        const problems = [...after, ...early.map((n) => `attempt ${n} came early`)];
        if (attempts.length !== 5) problems.push(`${attempts.length} attempts, expected exactly 5`);
        for (let n = 1; n < attempts.length; n++)
          problems.push(...retryProblems(attempts[n - 1]!, attempts[n]!, endpoint.secret, ctx.target));
        if (view.status !== 'dead') problems.push(`the admin API shows ${view.status}, expected dead`);
        const gaps = view.attempts
          .slice(1)
          .map(
            (a, i) =>
              Date.parse(a.startedAt) - (Date.parse(view.attempts[i]!.startedAt) + view.attempts[i]!.durationMs),
          );
        gaps.forEach((gap, i) => {
          const target = DELAYS_MS[i + 1]!;
          if (gap < target || gap > target + 5000)
            problems.push(`attempt ${i + 2} started ${gap} ms after attempt ${i + 1} ended, expected ${target} ms`);
        });
        return outcome(problems, `delays ${gaps.map((g) => `${g} ms`).join(', ')}`);
      },
    }),
    defineCheck({
      id: 'webhooks.retry.redeliver',
      title: 'A DEAD delivery redelivered (202) comes again with the same id in a new round, freshly signed',
      source: { decision: 'D-060' },
      async run(ctx) {
        if (!ctx.target.reference)
          return { status: 'skipped', reason: `a DEAD delivery needs the whole schedule: ${EXTERNAL_SCHEDULE}` };
        const { endpoint, attempts, setAnswer } = await deadDelivery(ctx);
        try {
          const id = attempts[0]!.headers['x-svc-delivery']!;
          setAnswer(200);
          const res = await adminCall(ctx.target, 'POST', `/webhooks/deliveries/${id}/redeliver`);
          if (res.status !== 202) return outcome([`redeliver answered HTTP ${res.status}: ${res.text.slice(0, 200)}`]);
          const round = (res.json as DeliveryView).round;
          await endpoint.receiver.waitFor(endpoint.path, () => attemptsOf(endpoint, id).length > 5, 15_000);
          const again = attemptsOf(endpoint, id)[5]!;
          const problems = retryProblems(attempts[4]!, again, endpoint.secret, ctx.target);
          if (attempts.some((a) => a.headers['x-svc-signature'] === again.headers['x-svc-signature']))
            problems.push('the redelivery reused an earlier signature');
          const view = await deliveryView(ctx.target, id);
          if (
            round !== 2 ||
            view.status !== 'delivered' ||
            view.attempts.at(-1)?.round !== 2 ||
            view.attempts.at(-1)?.number !== 1
          )
            problems.push(
              `after redelivery: ${JSON.stringify({ round, status: view.status, last: view.attempts.at(-1) })}`,
            );
          const conflict = await adminCall(ctx.target, 'POST', `/webhooks/deliveries/${id}/redeliver`);
          if (conflict.status !== 409)
            problems.push(`redelivering a delivered delivery answered ${conflict.status}, expected 409`);
          return outcome(problems);
        } finally {
          await dropEndpoint(ctx.target, endpoint);
        }
      },
    }),
    defineCheck({
      id: 'webhooks.signature.rotation',
      title: 'During a secret rotation X-SVC-Signature carries both signatures, current first; after it only one',
      source: { decision: 'D-047' },
      async run(ctx) {
        const endpoint = await registerEndpoint(ctx.target, { events: ['payment.initiated'] });
        try {
          const previous = endpoint.secret;
          const current = newSecret();
          const rotated = await adminJson<{ previousSecretExpiresAt: string | null }>(
            ctx.target,
            'PUT',
            `/webhooks/endpoints/${endpoint.id}/secret`,
            { secret: current, gracePeriodSeconds: 3600 },
            200,
          );
          await transfer(ctx.target, smallAmount());
          const [during] = await endpoint.receiver.waitFor(endpoint.path, (all) => all.length >= 1);
          const problems: string[] = [];
          const parts = during!.headers['x-svc-signature']!.split(',');
          if (parts.length !== 2)
            problems.push(`during the grace period X-SVC-Signature has ${parts.length} signature(s), expected 2`);
          const one = (secret: string, part: string | undefined) =>
            signatureProblems(
              { ...during!, headers: { ...during!.headers, 'x-svc-signature': part ?? '' } },
              [secret],
              targetNow(ctx.target),
            ).length === 0;
          if (!one(current, parts[0])) problems.push("the first signature is not the current secret's");
          if (!one(previous, parts[1])) problems.push("the second signature is not the previous secret's");
          if (!rotated.previousSecretExpiresAt)
            problems.push('previousSecretExpiresAt is null during the grace period');
          const last = newSecret();
          await adminJson(
            ctx.target,
            'PUT',
            `/webhooks/endpoints/${endpoint.id}/secret`,
            { secret: last, gracePeriodSeconds: 0 },
            200,
          );
          await transfer(ctx.target, smallAmount());
          const all = await endpoint.receiver.waitFor(endpoint.path, (received) => received.length >= 2);
          const after = all[1]!;
          if (after.headers['x-svc-signature']!.includes(','))
            problems.push('after a rotation with gracePeriodSeconds 0, two signatures were sent');
          problems.push(...signatureProblems(after, [last], targetNow(ctx.target)));
          return outcome(problems);
        } finally {
          await dropEndpoint(ctx.target, endpoint);
        }
      },
    }),
    defineCheck({
      id: 'webhooks.endpoint.no_secret',
      title: 'An endpoint receives nothing until its signing secret is set',
      source: { decision: 'D-060' },
      async run(ctx) {
        const receiver = await receiverFor(ctx.target);
        const path = `/hooks/unsigned-${Date.now()}`;
        const { debtor } = await partiesFor(ctx.target);
        const created = await adminJson<{ id: string; hasSecret: boolean }>(
          ctx.target,
          'POST',
          '/webhooks/endpoints',
          { url: receiver.url(path), events: ['payment.initiated'], accountIds: [debtor.id] },
          201,
        );
        registerEndpointCleanup(ctx.target, created.id);
        try {
          await transfer(ctx.target, smallAmount());
          await sleep(ctx.target.reference ? 1500 : 5000);
          const got = receiver.deliveries(path).length;
          return outcome([
            ...(created.hasSecret ? ['hasSecret is true before a secret was set'] : []),
            ...(got ? [`${got} deliveries reached an endpoint without a secret`] : []),
          ]);
        } finally {
          await adminCall(ctx.target, 'DELETE', `/webhooks/endpoints/${created.id}`).catch(() => undefined);
        }
      },
    }),
  ];
}
