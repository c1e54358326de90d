/**
 * What each write operation of the four OpenAPI contracts changes on a target, and how a run puts it back
 * (D-235): every operation that is not a GET has one class here, as data; `write-effects.ts` applies it.
 * A test holds the contracts and this table to each other, so a new write operation fails it until classified.
 */
import type { EngineSurface } from './contract.ts';

/**
 * - `undone`: what a 2xx answer made is undone when the run ends (deleted, revoked, closed), or the operation
 *   changes only something the run made, whose undo covers the change.
 * - `history`: the change is the record of what happened (a transfer, a funding, a payment); it cannot and
 *   need not be undone, and the cleanup summary lists it as left.
 * - `avoided`: a valid call would change the deployment for good or lock the harness out; on a deployment the
 *   engine sends only its invalid and unauthenticated cases (D-237).
 * - `read-only`: the contract says the operation changes nothing.
 */
export type WriteClass = 'undone' | 'history' | 'avoided' | 'read-only';

/** Where an id is read: a path parameter or a body member of the request, or a member of the 2xx answer. */
export type IdFrom = { path: string } | { body: string } | { answer: string };

/** How the run undoes what a 2xx answer made: one request when the run ends. */
export interface Undo {
  /** Registry kind (`conformance/cleanup.ts`), e.g. `API key`. */
  kind: string;
  /** The id of what was made. */
  id: IdFrom;
  /** `METHOD /route` of the same contract; `{id}` (or the route's one parameter) takes the id. */
  call: string;
  /** A body of the undo request. */
  body?: unknown;
  /** Whose credential the undo sends: the administrator token, or the Authorization of the request that made it. */
  as: 'admin' | 'maker';
  /** Statuses of a done undo; a 404 counts as nothing left to undo. */
  ok: readonly number[];
  /** Not registered when the id was on the sender allow-list when the run started (D-239). */
  unlessListedAtStart?: true;
}

/** One write operation's class. */
export interface WriteRule {
  class: WriteClass;
  /** Why, citing the interface specification or a decision. */
  why: string;
  /** `undone`: the undo a 2xx answer registers. */
  undo?: Undo;
  /** The resource the operation changes, named in the request: on a deployment a valid case is sent only when the run made it (D-236). */
  changes?: { kind: string; id: IdFrom };
  /**
   * A 2xx answer is the undo of what the run made (a delete, a revocation, a close): its registry entry is
   * done, always or when the answer's `member` holds `equals`.
   */
  ends?: { kind: string; id: IdFrom; when?: { member: string; equals: string } };
  /** `history`: the kind the cleanup summary lists what a 2xx answer left under, and where its id is read. */
  left?: { kind: string; id?: IdFrom };
}

const adminDelete = (kind: string, route: string): Undo => ({
  kind,
  id: { answer: 'id' },
  call: `DELETE ${route}`,
  as: 'admin',
  ok: [204, 404],
});

const sessionScoped = 'the session confines it to the identity the run signed in (D-238)';

/** The class of every write operation, by surface and `METHOD /route` (D-235). */
export const WRITES: Readonly<Record<EngineSurface, Readonly<Record<string, WriteRule>>>> = {
  institutional: {
    'POST /transfers': {
      class: 'history',
      why: 'a transfer is ledger history: confirmed is final and never reversed (D-006)',
      changes: { kind: 'account', id: { body: 'fromAccountId' } },
      left: { kind: 'transfer', id: { answer: 'txRef' } },
    },
    'POST /bank/connect': { class: 'read-only', why: 'read-only and idempotent by the contract (D-011)' },
    'POST /payments/pacs008': {
      class: 'history',
      why: 'a payment instruction is kept with its events and its uetr is refused again (D-007, D-056)',
      changes: { kind: 'account', id: { body: 'sttlmAcct' } },
      left: { kind: 'payment', id: { body: 'uetr' } },
    },
  },
  explorer: {},
  admin: {
    'POST /api-keys': {
      class: 'undone',
      why: 'revoked when the run ends; a revoked key stays listed for audit (D-059, D-182)',
      undo: adminDelete('API key', '/api-keys/{id}'),
    },
    'PATCH /api-keys/{id}': {
      class: 'undone',
      why: "changes only a key the run issued, which the key's revocation ends (D-236)",
      changes: { kind: 'API key', id: { path: 'id' } },
    },
    'DELETE /api-keys/{id}': {
      class: 'undone',
      why: 'revokes only a key the run issued: a revocation is terminal (D-059, D-236)',
      changes: { kind: 'API key', id: { path: 'id' } },
      ends: { kind: 'API key', id: { path: 'id' } },
    },
    'POST /mldsa-keys': {
      class: 'undone',
      why: 'revoked when the run ends (D-059, D-182)',
      undo: adminDelete('ML-DSA key', '/mldsa-keys/{id}'),
    },
    'PATCH /mldsa-keys/{id}': {
      class: 'undone',
      why: "changes only a key the run registered, which the key's revocation ends (D-236)",
      changes: { kind: 'ML-DSA key', id: { path: 'id' } },
    },
    'DELETE /mldsa-keys/{id}': {
      class: 'undone',
      why: 'revokes only a key the run registered: a revocation is terminal (D-059, D-236)',
      changes: { kind: 'ML-DSA key', id: { path: 'id' } },
      ends: { kind: 'ML-DSA key', id: { path: 'id' } },
    },
    'POST /accounts': {
      class: 'undone',
      why: 'closed when the run ends: there is no delete and closed is terminal, which takes the address off the allow-list (D-008, D-152)',
      undo: {
        kind: 'account',
        id: { answer: 'id' },
        call: 'PATCH /accounts/{id}',
        body: { status: 'closed' },
        as: 'admin',
        ok: [200, 404],
      },
    },
    'PATCH /accounts/{id}': {
      class: 'undone',
      why: "changes only an account the run opened, which the account's closing ends (D-008, D-236)",
      changes: { kind: 'account', id: { path: 'id' } },
      ends: { kind: 'account', id: { path: 'id' }, when: { member: 'status', equals: 'closed' } },
    },
    'POST /accounts/{id}/fund': {
      class: 'history',
      why: "a funding is a mined transaction in the account's statement (D-061, D-151); only an account the run opened is funded (D-236)",
      changes: { kind: 'account', id: { path: 'id' } },
      left: { kind: 'funding', id: { answer: 'txHash' } },
    },
    'POST /chain/accounts': {
      class: 'undone',
      why: 'an address the allow-list did not hold when the run started is taken off it; its funding stays as history (D-152, D-239)',
      undo: {
        kind: 'chain sender',
        id: { answer: 'address' },
        call: 'DELETE /chain/accounts/{address}',
        as: 'admin',
        ok: [204, 404],
        unlessListedAtStart: true,
      },
    },
    'DELETE /chain/accounts/{address}': {
      class: 'undone',
      why: 'takes off only an address the run put on the allow-list (D-152, D-236)',
      changes: { kind: 'chain sender', id: { path: 'address' } },
      ends: { kind: 'chain sender', id: { path: 'address' } },
    },
    'POST /kek/rotate': {
      class: 'avoided',
      why: 'a new key-encryption key re-wraps every account key; the previous one is not kept (D-061, D-237)',
    },
    'POST /wallet-keys/{name}/rotate': {
      class: 'avoided',
      why: 'a retired signing key is not brought back: sessions and extension packages move to the new key (D-214, D-237)',
    },
    'POST /admin-token/rotate': {
      class: 'avoided',
      why: 'the token the run holds stops working at once: the harness is locked out (D-221, D-237)',
    },
    'POST /metrics-token': {
      class: 'avoided',
      why: "a new metrics token replaces the deployment's, and its scraper is locked out (D-280, D-237)",
    },
    'POST /webhooks/endpoints': {
      class: 'undone',
      why: 'deleted when the run ends; its pending deliveries become dead (D-060, D-182)',
      undo: adminDelete('webhook endpoint', '/webhooks/endpoints/{id}'),
    },
    'PATCH /webhooks/endpoints/{id}': {
      class: 'undone',
      why: "changes only an endpoint the run registered, which the endpoint's deletion ends (D-236)",
      changes: { kind: 'webhook endpoint', id: { path: 'id' } },
    },
    'DELETE /webhooks/endpoints/{id}': {
      class: 'undone',
      why: 'deletes only an endpoint the run registered (D-060, D-236)',
      changes: { kind: 'webhook endpoint', id: { path: 'id' } },
      ends: { kind: 'webhook endpoint', id: { path: 'id' } },
    },
    'PUT /webhooks/endpoints/{id}/secret': {
      class: 'undone',
      why: "sets the secret only of an endpoint the run registered, which the endpoint's deletion ends (D-236)",
      changes: { kind: 'webhook endpoint', id: { path: 'id' } },
    },
    'POST /webhooks/deliveries/{id}/redeliver': {
      class: 'history',
      why: "a new round of attempts in the delivery's log; it keeps the delivery id, on which receivers de-duplicate (D-060, D-224)",
      left: { kind: 'redelivery', id: { path: 'id' } },
    },
    'POST /payments/{uetr}/return': {
      class: 'history',
      why: 'a return is a payment back, kept with its event (D-007); only a payment the run submitted is returned (D-236)',
      changes: { kind: 'payment', id: { path: 'uetr' } },
      left: { kind: 'payment return', id: { path: 'uetr' } },
    },
    'POST /qbft/votes': {
      class: 'avoided',
      why: 'a proposal cannot be withdrawn and applies only as validators seal blocks; a generated address added to the set is a validator that never seals, and enough of them stop the chain (D-037, D-237)',
    },
  },
  wallet: {
    'POST /auth/challenge': {
      class: 'history',
      why: 'a challenge is single use and lapses after 5 minutes (D-145)',
      left: { kind: 'sign-in challenge' },
    },
    'POST /auth/verify': {
      class: 'history',
      why: 'a session is a signed token that lapses after 15 minutes; the server keeps only the used nonce (D-018, D-145)',
      left: { kind: 'wallet session' },
    },
    'POST /wallets/register': {
      class: 'history',
      why: 'an identity is public keys only and the contract has no removal; nobody else holds its private key (D-069)',
      left: { kind: 'wallet identity', id: { body: 'svcId' } },
    },
    'PUT /sync/devices/{deviceId}': {
      class: 'undone',
      why: `deleted when the run ends with the session that registered it; ${sessionScoped}`,
      undo: {
        kind: 'sync device',
        id: { path: 'deviceId' },
        call: 'DELETE /sync/devices/{deviceId}',
        as: 'maker',
        ok: [204, 404],
      },
    },
    'DELETE /sync/devices/{deviceId}': {
      class: 'undone',
      why: `removes a device of the run's own identity; ${sessionScoped}`,
      ends: { kind: 'sync device', id: { path: 'deviceId' } },
    },
    'POST /sync/envelopes': {
      class: 'undone',
      why: `envelopes go with the devices they name when those are deleted (D-082); ${sessionScoped}`,
    },
    'PUT /owners/{svcId}': {
      class: 'history',
      why: 'the operator records an owner only for an identity the run registered; the contract has no removal (D-083, D-236)',
      changes: { kind: 'wallet identity', id: { path: 'svcId' } },
      left: { kind: 'owner record', id: { path: 'svcId' } },
    },
    'POST /bindings': {
      class: 'undone',
      why: `revoked when the run ends by the owner that made it; a revoked binding stays listed (D-084); ${sessionScoped}`,
      undo: {
        kind: 'binding',
        id: { answer: 'id' },
        call: 'POST /bindings/{bindingId}/revoke',
        as: 'maker',
        ok: [200, 404],
      },
    },
    'POST /bindings/{bindingId}/accept': {
      class: 'undone',
      why: `accepts a binding named for the run's identity, which its revocation ends (D-084); ${sessionScoped}`,
    },
    'PUT /bindings/{bindingId}/limits': {
      class: 'undone',
      why: `changes a binding the run's identity owns, which its revocation ends (D-084); ${sessionScoped}`,
    },
    'POST /bindings/{bindingId}/revoke': {
      class: 'undone',
      why: `ends a binding the run's identity owns (D-084); ${sessionScoped}`,
      ends: { kind: 'binding', id: { path: 'bindingId' } },
    },
    'POST /banking/authorizations': {
      class: 'history',
      why: "an approved operation counts against the binding's ceiling and is the owner's activity record (D-085)",
      left: { kind: 'banking authorization' },
    },
    'POST /managed/email-codes': {
      class: 'history',
      why: 'a code lapses after 10 minutes; the generated addresses are under .example, where no mail arrives (D-210)',
      left: { kind: 'e-mail code' },
    },
    'POST /managed/accounts': {
      class: 'undone',
      why: `deleted when the run ends with the session that opened it, email and share with it (D-127); ${sessionScoped}`,
      undo: {
        kind: 'managed account',
        id: { answer: 'svcId' },
        call: 'DELETE /managed/accounts',
        as: 'maker',
        ok: [204, 404],
      },
    },
    'DELETE /managed/accounts': {
      class: 'undone',
      why: `removes the managed account of the run's own identity (D-127); ${sessionScoped}`,
    },
    'POST /managed/sessions': {
      class: 'history',
      why: 'a managed token is a signed token that lapses after 5 minutes (D-127)',
      left: { kind: 'managed session' },
    },
  },
};
