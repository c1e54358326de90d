/**
 * The webhook preflight (D-181): before the webhook checks, one event is delivered to the harness's receiver.
 * When it cannot arrive, because the deployment refuses the receiver's address, does not trust the receiver's
 * CA, or cannot reach it, the webhook checks are skipped with that reason and how to fix it. The deployment's
 * own account of each attempt (GET /admin/v1/webhooks/deliveries, D-060) shows a failed attempt within a
 * second, so the preflight does not wait out a retry schedule.
 */
import type { DeliveryAttempt } from '@svckit/sdk/admin';
import type { CheckContext } from '../catalogue.ts';
import { adminCall, smallAmount, sleep } from '../checks/institutional/support.ts';
import { dropEndpoint, registerEndpoint, transfer, type Endpoint } from '../checks/webhooks/support.ts';
import { waitingFor } from '../progress.ts';
import type { Gate } from '../runner.ts';
import { receiverTls } from './receiver-tls.ts';

/** How long the preflight waits for its delivery (or a failed attempt) once the event is emitted. */
export const PREFLIGHT_WAIT_MS = 30_000;

/** One attempt as GET /admin/v1/webhooks/deliveries reports it. */
type Attempt = Pick<DeliveryAttempt, 'responseStatus' | 'error' | 'outcome'>;

/** The gate in front of every `webhooks.*` check. */
export function webhookPreflight(): Gate {
  return {
    name: 'webhook delivery',
    // The receiver-side checks (D-171) send to the institution's receiver, not through the deployment.
    covers: (check) => check.id.startsWith('webhooks.') && !check.id.startsWith('webhooks.receiver.'),
    deadlineMs: PREFLIGHT_WAIT_MS + 30_000,
    run: (ctx) => deliverOne(ctx),
  };
}

/** Registers an endpoint, emits one event, and resolves to undefined once it arrives, else to why it cannot. */
async function deliverOne(ctx: CheckContext): Promise<string | undefined> {
  const caPath = (await receiverTls()).caCertPath;
  let endpoint: Endpoint;
  try {
    endpoint = await registerEndpoint(ctx.target, { events: ['payment.initiated'] });
  } catch (error) {
    const message = (error as Error).message;
    if (/public address/.test(message))
      return (
        `the deployment refuses the receiver's address (${errorField(message)}). Use --receiver-host with an ` +
        'address of this machine the deployment can reach, or, on a development svckit deployment, set ' +
        'SVC_WEBHOOK_ALLOW_PRIVATE=1 (D-143)'
      );
    throw error;
  }
  try {
    await transfer(ctx.target, smallAmount());
    const deadline = Date.now() + PREFLIGHT_WAIT_MS;
    while (Date.now() < deadline) {
      if (endpoint.receiver.deliveries(endpoint.path).length > 0) return undefined;
      const failed = await failedAttempt(ctx, endpoint);
      if (failed) return diagnose(failed, endpoint.url, caPath);
      await waitingFor(`a delivery to ${endpoint.url}`, sleep(300));
    }
    return (
      `no delivery reached ${endpoint.url} within ${PREFLIGHT_WAIT_MS / 1000} s, and the deployment reports no ` +
      'failed attempt; check that its webhook dispatcher runs'
    );
  } finally {
    await dropEndpoint(ctx.target, endpoint);
  }
}

/** The `error` field of an {error, code} body quoted in `message`, else the message's start. */
function errorField(message: string): string {
  const quoted = /"error":("(?:[^"\\]|\\.)*")/.exec(message)?.[1];
  try {
    if (quoted) return JSON.parse(quoted) as string;
  } catch {}
  return message.slice(0, 300);
}

/** The first failed attempt the deployment reports for the endpoint, if any. */
async function failedAttempt(ctx: CheckContext, endpoint: Endpoint): Promise<Attempt | undefined> {
  const res = await adminCall(ctx.target, 'GET', `/webhooks/deliveries?endpointId=${endpoint.id}`);
  if (res.status !== 200) return undefined;
  const deliveries = (res.json as { deliveries?: { attempts?: Attempt[] }[] }).deliveries ?? [];
  return deliveries.flatMap((d) => d.attempts ?? []).find((a) => a.outcome === 'failure');
}

/** Why the attempt failed, and what to change. */
function diagnose(attempt: Attempt, url: string, caPath: string): string {
  const error = attempt.error ?? `HTTP ${attempt.responseStatus}`;
  if (/TLS|handshake|CERT|certificate|SIGNATURE|self[- ]signed|unable to verify|issuer/i.test(error))
    return (
      `the deployment does not trust the receiver's CA (its attempt failed: ${error}), or the receiver's ` +
      `certificate does not name the host it calls. The deployment must trust ` +
      `${caPath}: on svckit set SVC_WEBHOOK_CA_FILE to that file (D-102), or run with --receiver-tls-dir <dir> ` +
      'so the CA stays the same between runs and trust <dir>/tls/ca.pem once'
    );
  if (/ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|timed? ?out|refused/i.test(error))
    return (
      `the deployment cannot reach the receiver at ${url} (its attempt failed: ${error}). Use --receiver-host ` +
      'with an address of this machine the deployment can reach, and --receiver-port if a firewall needs a fixed port'
    );
  return `the deployment's delivery to ${url} failed: ${error}`;
}
