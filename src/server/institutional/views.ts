/** Database rows → the institutional contract's objects (spec "Resources and their fields", A). */
import type { Account, StatementTransaction, Transfer } from '@svckit/sdk/institutional';
import type { AccountRow } from '../../ledger/accounts.ts';
import { formatUnits, limitNumber } from '../../ledger/money.ts';
import type { TransferRow } from '../../ledger/transfers/engine.ts';

/** spec "Account (A)"; balance with two decimals, truncated (D-033). */
export function accountView(row: AccountRow, balanceWei: bigint): Account {
  return {
    id: row.id,
    reference: row.reference,
    email: row.email,
    status: row.status as Account['status'],
    dailyLimit: limitNumber(BigInt(row.dailyLimitWei)),
    singleLimit: limitNumber(BigInt(row.singleLimitWei)),
    address: row.address,
    balance: formatUnits(balanceWei, 2),
  };
}

/** D-003: out when the account sent it, in when it received it. */
export const directionFor = (row: TransferRow, account: { id: string; address: string }) =>
  (row.accountId === account.id ? 'out' : 'in') as StatementTransaction['direction'];

/** spec "Statement transaction (A)"; blockNumber and timestamp are null until confirmed (D-038). */
export function statementView(row: TransferRow, account: { id: string; address: string }): StatementTransaction {
  return {
    txRef: row.txRef,
    txHash: row.txHash,
    direction: directionFor(row, account),
    amount: formatUnits(BigInt(row.amountWei), 2),
    toAddress: row.toAddress,
    status: row.status,
    blockNumber: row.blockNumber,
    timestamp: row.blockTimestamp,
    createdAt: row.createdAt.toISOString(),
  };
}

/** spec "Transfer (A)"; direction per D-054. */
export function transferView(row: TransferRow, direction: Transfer['direction']): Transfer {
  return {
    txRef: row.txRef,
    txHash: row.txHash,
    fromAddress: row.fromAddress,
    toAddress: row.toAddress,
    amount: formatUnits(BigInt(row.amountWei), 2),
    direction,
    status: row.status,
    blockNumber: row.blockNumber,
    timestamp: row.blockTimestamp,
    createdAt: row.createdAt.toISOString(),
  };
}
