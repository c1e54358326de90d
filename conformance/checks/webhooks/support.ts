// Shared helpers of the receiver-side webhook checks (surface B): the harness's HTTPS receiver per target, an
// endpoint registered on the target through its admin API (D-019) with a secret (D-047), the parties that make
// the target emit events through its own API (POST /transfers, POST /payments/pacs008; D-021), and the
// validation of each delivery against the AsyncAPI schemas (generated/webhooks/schemas.gen.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Hex } from 'viem';
import { webhookMessageByEvent, webhookSchemaDefs } from '@svckit/sdk/webhooks/schemas';
import { verifyWebhook } from '@svckit/sdk/webhooks/verifier';
import { forgetCreated, registerCreated } from '../../cleanup.ts';
import { type Capability, platformBicOf, type Target } from '../../targets/target.ts';
import { WebhookReceiver, type Received, type Responder } from '../../webhooks/receiver.ts';
import { receiverTls } from '../../webhooks/receiver-tls.ts';
import { checkDefiner } from '../define.ts';
import { adminJson, adminUndo, apiKey, inst, newAccount, type AccountView } from '../institutional/support.ts';

/** Checks that register an endpoint (admin) and make the target emit through its institutional API (base). */
export const WITH_RECEIVER: readonly Capability[] = ['base', 'admin'];

/** Defines a surface-B check (needs: WITH_RECEIVER unless it names its own). */
export const defineCheck = checkDefiner({ surface: 'B', needs: WITH_RECEIVER });

/** The clock deliveries are timed on: the reference stack's own, else this machine's. */
export const targetNow = (target: Target) => target.reference?.now?.() ?? Date.now();

const receivers = new WeakMap<Target, Promise<WebhookReceiver>>();

/** The target's receiver, started once and closed with the target. */
export function receiverFor(target: Target): Promise<WebhookReceiver> {
  let started = receivers.get(target);
  if (!started) {
    started = (async () => {
      const receiver = await WebhookReceiver.start({
        tls: await receiverTls(),
        publicHost: target.receiverHost ?? '127.0.0.1',
        listenHost: target.receiverHost ? '0.0.0.0' : '127.0.0.1',
        ...(target.receiverPort ? { port: target.receiverPort } : {}),
        clock: () => targetNow(target),
      });
      const close = target.close?.bind(target);
      target.close = async () => {
        await receiver.close();
        await close?.();
      };
      return receiver;
    })();
    receivers.set(target, started);
  }
  return started;
}

/** A registered endpoint: its receiver path and its current secret. */
export type Endpoint = { id: string; path: string; url: string; secret: string; receiver: WebhookReceiver };

/** A 43-character secret (D-060: 32 to 256 printable characters). */
export const newSecret = () => `whsec_${randomBytes(27).toString('base64url')}`;

/** Registers an endpoint for the parties' accounts on a fresh receiver path (D-019, D-142) and sets its secret (D-060: nothing is sent before). */
export async function registerEndpoint(
  target: Target,
  options: { events?: string[]; responder?: Responder; accountIds?: string[] } = {},
): Promise<Endpoint> {
  const receiver = await receiverFor(target);
  const path = `/hooks/${randomUUID()}`;
  if (options.responder) receiver.respond(path, options.responder);
  const url = receiver.url(path);
  // D-142: the endpoint belongs to an institution's accounts (by default the paying parties'), and receives their payments' events.
  const accountIds =
    options.accountIds ??
    (await partiesFor(target).then(({ debtor, creditor, empty }) => [debtor.id, creditor.id, empty.id]));
  const created = await adminJson<{ id: string }>(
    target,
    'POST',
    '/webhooks/endpoints',
    {
      url,
      accountIds,
      description: 'svckit conformance receiver',
      ...(options.events ? { events: options.events } : {}),
    },
    201,
  );
  registerEndpointCleanup(target, created.id);
  const secret = newSecret();
  await adminJson(target, 'PUT', `/webhooks/endpoints/${created.id}/secret`, { secret, gracePeriodSeconds: 0 }, 200);
  return { id: created.id, path, url, secret, receiver };
}

/** Registers an endpoint with the run's cleanup (D-182): deleted at the end, its pending deliveries marked dead. */
export function registerEndpointCleanup(target: Target, id: string): void {
  registerCreated(target, {
    kind: 'webhook endpoint',
    id,
    undo: adminUndo(target, 'DELETE', `/webhooks/endpoints/${id}`, undefined, [204, 404]),
  });
}

/** Removes an endpoint so later checks' events do not reach it (the run's cleanup retries a failed removal). */
export async function dropEndpoint(target: Target, endpoint: Endpoint): Promise<void> {
  const removed = await adminJson(target, 'DELETE', `/webhooks/endpoints/${endpoint.id}`, undefined, 204).then(
    () => true,
    () => false,
  );
  if (removed) forgetCreated(target, 'webhook endpoint', endpoint.id);
}

/** Accounts and a key that can pay: a funded debtor/settlement account, a creditor, an unfunded account. */
export type Parties = { debtor: AccountView; creditor: AccountView; empty: AccountView; key: string };

const parties = new WeakMap<Target, Promise<Parties>>();

/** The target's paying parties, created once through the admin API (funding needs the local chain, D-061). */
export function partiesFor(target: Target): Promise<Parties> {
  let made = parties.get(target);
  if (!made) {
    made = (async () => {
      const debtor = await newAccount(target, { fund: '5000.00' });
      const creditor = await newAccount(target, { fund: '10.00' });
      const empty = await newAccount(target);
      const key = await apiKey(target, ['accounts:read', 'transfers:read', 'transfers:write', 'payments:write']);
      return { debtor, creditor, empty, key };
    })();
    made.catch(() => parties.delete(target));
    parties.set(target, made);
  }
  return made;
}

/** POST /transfers of `amount` from the debtor to the creditor; throws unless 201. */
export async function transfer(
  target: Target,
  amount: string,
  to?: Hex,
): Promise<{ txRef: string; txHash: string; status: string }> {
  const p = await partiesFor(target);
  const res = await inst(
    target,
    'POST',
    '/transfers',
    { bearer: p.key },
    { body: { fromAccountId: p.debtor.id, to: to ?? p.creditor.address, amount } },
  );
  if (res.status !== 201) throw new Error(`POST /transfers answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json as { txRef: string; txHash: string; status: string };
}

/** POST /payments/pacs008 (D-053, D-056); `from` pays (default: the funded debtor). Throws unless 202. */
export async function pacs008(
  target: Target,
  amount: string,
  ccy: string,
  from?: AccountView,
): Promise<{ uetr: string; txRef: string }> {
  const p = await partiesFor(target);
  const uetr = randomUUID();
  const body = {
    msgId: `CONF${Date.now()}`,
    sttlmAcct: (from ?? p.debtor).id,
    endToEndId: `E2E-${uetr.slice(0, 8)}`,
    uetr,
    intrBkSttlmAmt: amount,
    intrBkSttlmCcy: ccy,
    chrgBr: 'SHAR',
    dbtrNm: 'Conformance Debtor GmbH',
    dbtrAgt: 'DEUTDEFFXXX',
    cdtrNm: 'Conformance Creditor Ltd',
    cdtrAcct: p.creditor.id,
    cdtrAgt: await platformBic(target),
    rmtInf: 'svckit conformance',
  };
  const res = await inst(target, 'POST', '/payments/pacs008', { bearer: p.key }, { body });
  if (res.status !== 202)
    throw new Error(`POST /payments/pacs008 answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json as { uetr: string; txRef: string };
}

/** The platform's BIC (D-049). */
async function platformBic(target: Target): Promise<string> {
  return platformBicOf(target);
}

/** Waits for `count` deliveries on the endpoint whose payload `uetr` (or txRef) matches. */
export async function deliveriesOf(
  endpoint: Endpoint,
  match: (payload: Record<string, unknown>) => boolean,
  ready: (received: Received[]) => boolean,
  timeoutMs = 30_000,
): Promise<Received[]> {
  const mine = (all: Received[]) => all.filter((r) => match(parseBody(r)));
  return mine(await endpoint.receiver.waitFor(endpoint.path, (all) => ready(mine(all)), timeoutMs));
}

/** The delivery's JSON body, or an empty object when it is not JSON. */
export function parseBody(received: Received): Record<string, unknown> {
  try {
    return JSON.parse(received.rawBody) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
// AsyncAPI 3.0 schemas are JSON Schema draft-07 (the generated module holds them under #/$defs).
ajv.addSchema({ $id: 'webhooks', $defs: webhookSchemaDefs });

const CANONICAL: Record<string, string> = {
  'x-svc-signature': 'X-SVC-Signature',
  'x-svc-event': 'X-SVC-Event',
  'x-svc-timestamp': 'X-SVC-Timestamp',
  'x-svc-delivery': 'X-SVC-Delivery',
};

/** Problems of one delivery against the message of its X-SVC-Event: headers schema, payload schema, event match. */
export function schemaProblems(received: Received): string[] {
  const event = received.headers['x-svc-event'] as keyof typeof webhookMessageByEvent | undefined;
  const where = `delivery ${received.headers['x-svc-delivery'] ?? '(no id)'}`;
  if (!event || !(event in webhookMessageByEvent))
    return [`${where}: X-SVC-Event ${JSON.stringify(event)} names no message of the contract`];
  const message = webhookMessageByEvent[event];
  const headers = Object.fromEntries(Object.entries(received.headers).map(([k, v]) => [CANONICAL[k] ?? k, v]));
  const problems: string[] = [];
  for (const [part, value] of [
    ['Headers', headers],
    ['Payload', parseBody(received)],
  ] as const) {
    const validate = ajv.getSchema(`webhooks#/$defs/${message}${part}`)!;
    if (!validate(value))
      problems.push(
        ...(validate.errors ?? []).map(
          (e) => `${where} ${part.toLowerCase()}${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`,
        ),
      );
  }
  return problems;
}

/** Problems with the signature of a delivery signed with `secrets` (one, or current and previous, D-047). */
export function signatureProblems(received: Received, secrets: string[], nowMs: number): string[] {
  try {
    verifyWebhook(received.rawBody, received.headers, secrets, { now: nowMs });
    return [];
  } catch (error) {
    return [`delivery ${received.headers['x-svc-delivery']} (attempt ${received.nth}): ${(error as Error).message}`];
  }
}

/** Moves the reference stack's clock; an external target's time cannot be moved (the check says why it waits). */
export function advance(target: Target, ms: number): void {
  target.reference?.advanceClock(ms);
}
