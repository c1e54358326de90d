// A POST /transfers transfer between two platform accounts is a payment (D-049): the payment, its
// payment.initiated event and the event's deliveries are written with the transfer in one statement; the
// confirmer settles it with payment.settled; an administrator can return it from the creditor account (D-062),
// which needs the creditor found inside that statement.
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount } from '../../conformance/checks/institutional/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { admin, eventually, wallet } from '../admin/support.ts';

let target: Target;
beforeAll(async () => {
  target = await sharedReferenceTarget();
});

type Delivery = { event: string; uetr: string; payload: { txRef: string; status: string; onChainTxHash?: string } };

describe("a transfer's payment", () => {
  it('is initiated with the transfer, settled with its confirmation and returned from the creditor', async () => {
    const [debtor, creditor] = [await newAccount(target, { fund: '10' }), await newAccount(target)];
    const endpoint = (
      await admin(target, 'POST', '/webhooks/endpoints', {
        url: 'https://127.0.0.1:9/unreachable',
        accountIds: [debtor.id],
      })
    ).json as { id: string };
    await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, {
      secret: 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU',
    });
    const key = await apiKey(target, ['transfers:write', 'transfers:read']);
    const sent = await wallet(target, 'POST', '/transfers', key, {
      fromAccountId: debtor.id,
      to: creditor.address,
      amount: '2.50',
    });
    expect(sent.status).toBe(201);
    const { txHash } = sent.json as { txHash: string };
    const deliveries = await eventually(async () => {
      const page = (await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpoint.id}&limit=200`)).json as {
        deliveries: Delivery[];
      };
      return page.deliveries.some((d) => d.event === 'payment.settled' && d.payload.onChainTxHash === txHash)
        ? page.deliveries
        : undefined;
    });
    const settled = deliveries.find((d) => d.event === 'payment.settled' && d.payload.onChainTxHash === txHash)!;
    const initiated = deliveries.filter((d) => d.event === 'payment.initiated' && d.uetr === settled.uetr);
    expect(initiated).toHaveLength(1);
    expect(initiated[0]!.payload).toMatchObject({ txRef: settled.payload.txRef, status: 'INITIATED' });

    const returned = await admin(target, 'POST', `/payments/${settled.uetr}/return`, { reason: 'test return' });
    expect(returned.status).toBe(200);
    expect(returned.json).toMatchObject({ uetr: settled.uetr, status: 'RETURNED' });
    await admin(target, 'DELETE', `/webhooks/endpoints/${endpoint.id}`);
  });
});
