/**
 * The lifecycles of the specification the stateful phase runs by name, where links alone cannot state the
 * order (D-189): account → fund → transfer → statement → transfer status; an API key issued, used, revoked
 * and used again; a webhook endpoint registered, given its secret, sent an event and deleted; a wallet
 * session from challenge and verify, used, and a sync device registered and deleted.
 */
import { newIdentity, pqSign, registrationProof } from '../../checks/wallet/support.ts';
import { mlKem768, sha3_256, toHex } from '@svckit/sdk/crypto';
import type { CaseInput } from '../core/cases.ts';
import type { NamedCheck } from '../core/names.ts';
import type { EngineSurface } from './contract.ts';
import { followLinks, type Sequence, unique } from './sequence.ts';

/** One named lifecycle. */
export interface Lifecycle {
  name: string;
  /** The surface whose results hold its verdicts (its steps may use the other surfaces' contracts). */
  surface: EngineSurface;
  /** operationIds it starts from with an input of its own; the generic link follower leaves them to it. */
  startsFrom: string[];
  /** The sequence checks it judges (skipped with the reason when it cannot run). */
  judges: NamedCheck[];
  run(seq: Sequence): Promise<void>;
}

/** An account created through the admin API (and funded through its link), for the sequence. */
async function account(seq: Sequence, fund?: string): Promise<{ id: string; address: string }> {
  const input: CaseInput = {
    params: {},
    body: { email: `engine-${unique()}@bank.example`, dailyLimit: 1_000_000, singleLimit: 100_000 },
  };
  const res = await seq.step('admin', 'adminCreateAccount', 'positive', input, { what: 'an account of the sequence' });
  const created = seq.require(res, 'POST /admin/v1/accounts') as { id: string; address: string };
  // D-008: an account cannot be deleted; closing it is terminal, so the sequence closes what it opened.
  seq.undo.push(() =>
    seq.step(
      'admin',
      'adminUpdateAccount',
      'positive',
      { params: { 'path:id': created.id }, body: { status: 'closed' } },
      { what: 'close the account the sequence opened' },
    ),
  );
  if (fund) {
    const { op } = seq.operation('admin', 'adminCreateAccount');
    const linked = { ...seq.linked(op, input, res, 'FundAccount'), body: { amount: fund } };
    seq.require(
      await seq.step('admin', 'adminFundAccount', 'positive', linked, { what: `fund ${fund} (link FundAccount)` }),
      'POST /admin/v1/accounts/{id}/fund',
    );
  }
  return created;
}

/** A transfer between two accounts of the sequence, with the engine's institutional key. */
async function transfer(seq: Sequence, from: string, to: string, amount: string) {
  const input: CaseInput = { params: {}, body: { fromAccountId: from, to, amount } };
  const res = await seq.step('institutional', 'institutionalCreateTransfer', 'positive', input, {
    what: `transfer ${amount} between the sequence's accounts`,
  });
  return { input, res, body: seq.require(res, 'POST /transfers') as { txRef: string } };
}

const ledger: Lifecycle = {
  name: 'ledger lifecycle',
  surface: 'institutional',
  startsFrom: ['institutionalCreateTransfer'],
  judges: ['ensure_resource_availability'],
  async run(seq) {
    const debtor = await account(seq, '50.00');
    const creditor = await account(seq);
    const sent = await transfer(seq, debtor.id, creditor.address, '1.25');
    const txRef = sent.body.txRef;
    const listsIt = (res: { json: unknown }) =>
      ((res.json as { transactions?: { txRef?: string }[] })?.transactions ?? []).some((t) => t.txRef === txRef);
    await seq.step(
      'institutional',
      'institutionalGetAccountStatement',
      'after_create',
      { params: { 'path:id': debtor.id } },
      {
        what: 'the debtor statement lists the transfer',
        listed: { in: '/transactions', value: txRef },
        until: listsIt,
        waitMs: 10_000,
      },
    );
    const { op } = seq.operation('institutional', 'institutionalCreateTransfer');
    await followLinks(seq, op, sent.input, sent.res);
  },
};

const apiKey: Lifecycle = {
  name: 'API key lifecycle',
  surface: 'admin',
  startsFrom: ['adminCreateApiKey'],
  judges: ['ensure_resource_availability', 'use_after_free'],
  async run(seq) {
    const input: CaseInput = { params: {}, body: { name: `engine-${unique()}`, permissions: ['accounts:read'] } };
    const res = await seq.step('admin', 'adminCreateApiKey', 'positive', input, { what: 'issue a key' });
    const { token } = seq.require(res, 'POST /admin/v1/api-keys') as { token: string };
    const authorization = `Bearer ${token}`;
    const read: CaseInput = { params: {} };
    await seq.step('institutional', 'institutionalListAccounts', 'after_create', read, {
      what: 'the key just issued authenticates',
      authorization,
    });
    const { op } = seq.operation('admin', 'adminCreateApiKey');
    seq.require(
      await seq.step('admin', 'adminRevokeApiKey', 'positive', seq.linked(op, input, res, 'RevokeApiKey'), {
        what: 'revoke the key (link RevokeApiKey)',
      }),
      'DELETE /admin/v1/api-keys/{id}',
    );
    await seq.step('institutional', 'institutionalListAccounts', 'after_revoke', read, {
      what: 'the revoked key no longer authenticates',
      authorization,
    });
  },
};

const webhookEndpoint: Lifecycle = {
  name: 'webhook endpoint lifecycle',
  surface: 'admin',
  startsFrom: ['adminCreateWebhookEndpoint'],
  judges: ['ensure_resource_availability', 'use_after_free'],
  async run(seq) {
    const debtor = await account(seq, '20.00');
    const creditor = await account(seq);
    // A receiver address on a reserved name (RFC 2606): the delivery is recorded, its attempts fail.
    const input: CaseInput = {
      params: {},
      body: {
        url: `https://hooks-${unique()}.svckit-engine.example/receiver`,
        accountIds: [debtor.id, creditor.id],
        description: 'svckit conformance engine, stateful phase',
      },
    };
    const res = await seq.step('admin', 'adminCreateWebhookEndpoint', 'positive', input, {
      what: 'register an endpoint for the accounts',
    });
    const { id } = seq.require(res, 'POST /admin/v1/webhooks/endpoints') as { id: string };
    const { op } = seq.operation('admin', 'adminCreateWebhookEndpoint');
    const recorded = (r: { json: unknown }) => ((r.json as { total?: number })?.total ?? 0) > 0;
    // The links read the endpoint and set its secret; the event comes before the link that deletes it.
    await followLinks(seq, op, input, res, async () => {
      await transfer(seq, debtor.id, creditor.address, '0.75');
      await seq.step(
        'admin',
        'adminListWebhookDeliveries',
        'after_create',
        { params: { 'query:endpointId': id } },
        {
          what: "the transfer's event is recorded for the endpoint",
          listed: { in: '/deliveries', value: id },
          until: recorded,
          waitMs: 20_000,
        },
      );
    });
  },
};

const walletSession: Lifecycle = {
  name: 'wallet session lifecycle',
  surface: 'wallet',
  startsFrom: [],
  judges: ['ensure_resource_availability', 'use_after_free'],
  async run(seq) {
    const identity = newIdentity();
    const who = { address: identity.chain.address, svcId: identity.svcId };
    seq.require(
      await seq.step(
        'wallet',
        'walletRegisterWallet',
        'positive',
        { params: {}, body: registrationProof(identity) },
        { what: 'register an identity' },
      ),
      'POST /wallets/register',
    );
    const challenge = seq.require(
      await seq.step('wallet', 'walletCreateChallenge', 'positive', { params: {}, body: who }, { what: 'challenge' }),
      'POST /auth/challenge',
    ) as { message: string };
    const body = {
      ...who,
      ecdsaSig: await identity.chain.sign(challenge.message),
      pqSig: pqSign(identity, challenge.message),
    };
    const { token } = seq.require(
      await seq.step('wallet', 'walletVerify', 'positive', { params: {}, body }, { what: 'verify both signatures' }),
      'POST /auth/verify',
    ) as { token: string };
    const authorization = `Bearer ${token}`;
    await seq.step(
      'wallet',
      'walletListSyncDevices',
      'after_create',
      { params: {} },
      {
        what: 'the session just issued authorises',
        authorization,
      },
    );
    const kem = mlKem768.keygen();
    const device: CaseInput = {
      params: { 'path:deviceId': toHex(sha3_256(kem.publicKey).subarray(0, 8)) },
      body: { kemPublicKey: toHex(kem.publicKey), label: 'engine' },
    };
    seq.require(
      await seq.step('wallet', 'walletPutSyncDevice', 'positive', device, { what: 'register a device', authorization }),
      'PUT /sync/devices/{deviceId}',
    );
    await seq.step(
      'wallet',
      'walletListSyncDevices',
      'after_create',
      { params: {} },
      {
        what: 'the device just registered is listed',
        authorization,
        listed: { in: '/devices', value: device.params['path:deviceId'] as string },
      },
    );
    const gone: CaseInput = { params: device.params };
    seq.require(
      await seq.step('wallet', 'walletDeleteSyncDevice', 'positive', gone, {
        what: 'delete the device',
        authorization,
      }),
      'DELETE /sync/devices/{deviceId}',
    );
    await seq.step('wallet', 'walletDeleteSyncDevice', 'after_delete', gone, {
      what: 'the deleted device is gone',
      authorization,
    });
  },
};

/** Every named lifecycle, in run order. */
export const LIFECYCLES: readonly Lifecycle[] = [ledger, apiKey, webhookEndpoint, walletSession];
