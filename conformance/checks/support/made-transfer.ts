// D-241: a check that finds no transaction to look at makes one when the run holds the administrator token,
// rather than skip: a transfer between the two accounts of the institutional fixture (created through the admin
// API, D-048; the cleanup closes the accounts and removes the keys, D-182), sent with POST /transfers. The
// transfer cannot be undone; it stays in the ledger's history, as every transfer does.
import type { Hex } from 'viem';
import type { Target } from '../../targets/target.ts';
import { fixture, inst, settled, smallAmount, type Created } from '../institutional/support.ts';

/** Whether a check may create what it lacks on `target`: the run holds its administrator token (D-241). */
export const mayCreate = (target: Target): boolean => target.capabilities.has('admin') && Boolean(target.adminToken);

/** Sends a transfer between the fixture's accounts and waits until it is confirmed; its transaction hash. */
export async function madeTransfer(target: Target): Promise<Hex> {
  const f = await fixture(target);
  const body = { fromAccountId: f.sender.id, to: f.recipient.address, amount: smallAmount() };
  const res = await inst(target, 'POST', '/transfers', { bearer: f.full }, { body });
  if (res.status !== 201)
    throw new Error(
      `making a transfer to look at: POST /transfers answered HTTP ${res.status}: ${res.text.slice(0, 300)}`,
    );
  const created = res.json as Created;
  const done = await settled(target, { bearer: f.full }, created.txRef);
  if (done.status !== 'confirmed')
    throw new Error(`the transfer made to look at, ${created.txRef}, ended ${done.status}, expected confirmed`);
  return created.txHash;
}
