/**
 * Admin handlers for the local chain's sender allow-list (D-050, D-152): allow an external address, whose
 * key the client holds, to send through `/rpc` and fund it from the server-held funding account (D-151);
 * list the allow-list; take an address off it. Spec: writes require "a funded account on the permissioned chain".
 */
import type { Hex } from 'viem';
import { evmAddressParam } from '../http/evm-address.ts';
import { z } from 'zod';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import type { ChainAccount } from '@svckit/sdk/admin';
import {
  zAdminAddChainAccountBody,
  zAdminListChainAccountsQuery,
  zAdminRemoveChainAccountPath,
} from '@svckit/sdk/admin/zod';
import type { ChainPermissions, AllowlistEntry } from '../../node/permissions.ts';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { AccountStore } from '../../ledger/accounts.ts';
import { formatUnits, parseAmount } from '../../ledger/money.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict } from '../http/guards.ts';
import { withIntegers } from '../http/query.ts';
import type { Faucet, Funding } from './funding.ts';

type Handlers = Pick<RouteHandlers, 'adminListChainAccounts' | 'adminAddChainAccount' | 'adminRemoveChainAccount'>;

const ADDRESS = 'a 0x-prefixed 20-byte hex address';
/** The amount is left to parseAmount for the contract's INVALID_AMOUNT code (D-026), as POST /accounts/{id}/fund. */
const addBody = strict(zAdminAddChainAccountBody).extend({ amount: z.unknown().optional() }).strict();

/** The allow-list handlers; `faucet` is the one the account funding uses (one nonce sequence, D-151). */
export function chainAccountHandlers(deps: { chain: ChainRuntime; accounts: AccountStore; faucet: Faucet }): Handlers {
  const { chain, accounts, faucet } = deps;
  /** D-152: only the embedded chain keeps an allow-list. */
  const allowlist = (): ChainPermissions => {
    if (!chain.permissions || !chain.fundingAccount) {
      throw new RestError(
        ErrorCode.LOCAL_CHAIN_ONLY,
        'the sender allow-list belongs to the local chain; CHAIN_RPC_URL is set',
      );
    }
    return chain.permissions;
  };
  /** D-152: a platform account's address is managed through /accounts (closing it takes it off the list). */
  const notPlatform = async (address: Hex) => {
    const owner = await accounts.findByAddress(address);
    if (owner)
      throw new RestError(
        ErrorCode.PLATFORM_ACCOUNT,
        `${address} is the address of account ${owner.id}; manage it through /accounts`,
      );
  };

  return {
    adminListChainAccounts: async (request, reply) => {
      const query = guard(strict(zAdminListChainAccountsQuery), withIntegers(request.query), {
        page: 'an integer from 1 to 999999999',
        limit: 'an integer from 1 to 200',
      });
      const { total, rows } = await allowlist().page(query.page, query.limit);
      return reply.code(200).send({
        total,
        page: query.page,
        limit: query.limit,
        fundingAddress: chain.fundingAccount!.address,
        accounts: rows.map(view),
      });
    },
    adminAddChainAccount: async (request, reply) => {
      const body = guard(addBody, request.body, { address: ADDRESS });
      const amountWei = body.amount === undefined ? undefined : parseAmount('amount', body.amount);
      const permissions = allowlist();
      const address = evmAddressParam('address', body.address);
      await notPlatform(address);
      const listed = (await permissions.entry(address)) !== undefined;
      await permissions.allow(address, 'external');
      // D-220: the faucet does not list the address again, so a removal made meanwhile stands.
      let funding: Awaited<ReturnType<typeof faucet.fund>> | undefined;
      try {
        funding = amountWei === undefined ? undefined : await faucet.fund(address, amountWei, { allow: false });
      } catch (error) {
        // D-243: a request that fails changes nothing: an address it put on the list comes off again.
        if (!listed) await permissions.disallow(address);
        throw error;
      }
      const balanceWei =
        funding?.balanceWei ?? BigInt(await chain.upstream.call<Hex>('eth_getBalance', [address, 'latest']));
      const entry = await permissions.entry(address);
      if (!entry) throw removedMeanwhile(address, funding);
      return reply.code(201).send({
        ...view(entry),
        amount: amountWei === undefined ? null : formatUnits(amountWei, 2),
        txHash: (funding?.row.txHash as Hex | undefined) ?? null,
        balance: formatUnits(balanceWei, 2),
      });
    },
    adminRemoveChainAccount: async (request, reply) => {
      const { address: given } = guard(zAdminRemoveChainAccountPath, request.params, { address: ADDRESS });
      const permissions = allowlist();
      const address = evmAddressParam('address', given);
      await notPlatform(address);
      if (!(await permissions.disallow(address)))
        throw new RestError(ErrorCode.NOT_FOUND, `${address} is not on the allow-list`);
      return reply.code(204).send();
    },
  };
}

/**
 * D-220: the address left the allow-list while this add ran (a DELETE came in between): the removal wins and
 * the add answers 409 REVOKED, naming the funding that was mined all the same (it stays in the statement).
 */
function removedMeanwhile(address: Hex, funding: Funding | undefined): RestError {
  const sent = funding
    ? `; its funding ${funding.row.txRef} of ${formatUnits(BigInt(funding.row.amountWei), 2)} (${funding.row.txHash}) was mined and stays`
    : '';
  return new RestError(
    ErrorCode.REVOKED,
    `${address} was taken off the allow-list while this request added it${sent}; the removal stands: add it again to let it send`,
  );
}

/** An allow-list row as the contract's ChainAccount. */
const view = (row: AllowlistEntry): ChainAccount => ({
  address: row.address,
  reason: row.reason as ChainAccount['reason'],
  addedAt: row.addedAt.toISOString(),
});
