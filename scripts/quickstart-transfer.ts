/**
 * The README quick start's transfer, on the generated institutional SDK: sends `<amount>` from one account to
 * another's address, waits until the transfer is confirmed on chain, and prints the sender's statement.
 *
 *   SVC_API_KEY=svc_… npx tsx scripts/quickstart-transfer.ts <fromAccountId> <toAccountId> <amount>
 *
 * It reaches the server as `svckit admin` does: `https://<SVC_HOST>:<SVC_BASE_PORT>` (or SVC_BASE_URL),
 * trusting `<SVC_DATA_DIR>/tls/ca.pem`. It needs Node 26 (X25519MLKEM768); `npx` puts the pinned one first.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { createClient } from '@svckit/sdk/institutional/client';
import {
  institutionalCreateTransfer,
  institutionalGetAccount,
  institutionalGetAccountStatement,
  institutionalGetTransfer,
} from '@svckit/sdk/institutional';

/** The data of an SDK answer, or an exit with the server's `{error}`. */
function answer<T>(what: string, result: { data?: T; error?: unknown; response?: Response }): T {
  if (result.error === undefined && result.response?.ok) return result.data as T;
  console.error(`${what}: HTTP ${result.response?.status ?? '-'}: ${JSON.stringify(result.error)}`);
  process.exit(1);
}

const [from, to, amount] = process.argv.slice(2);
const apiKey = process.env.SVC_API_KEY;
if (!from || !to || !amount || !apiKey) {
  console.error(
    'usage: SVC_API_KEY=svc_… npx tsx scripts/quickstart-transfer.ts <fromAccountId> <toAccountId> <amount>',
  );
  process.exit(2);
}
const caFile = path.join(process.env.SVC_DATA_DIR || '.data', 'tls', 'ca.pem');
if (existsSync(caFile))
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(caFile, 'utf8')]);
const base =
  process.env.SVC_BASE_URL ?? `https://${process.env.SVC_HOST || '127.0.0.1'}:${process.env.SVC_BASE_PORT || '8443'}`;
const client = createClient({ baseUrl: `${base}/wallet/api/v1`, headers: { Authorization: `Bearer ${apiKey}` } });

const recipient = answer('read the recipient', await institutionalGetAccount({ client, path: { id: to } }));
// spec: an Idempotency-Key makes a retried POST /transfers safe; the same key never moves money twice.
const sent = answer(
  'send',
  await institutionalCreateTransfer({
    client,
    body: { fromAccountId: from, to: recipient.address, amount, memo: 'quick start' },
    headers: { 'Idempotency-Key': randomUUID() },
  }),
);
console.log(`sent ${amount} to ${to}: ${sent.txRef} ${sent.txHash} (${sent.status})`);

// Blocks come every SVC_BLOCK_TIME seconds (2 by default); a minute is far more than one block needs.
let status: string = sent.status;
for (let tries = 0; status === 'pending' && tries < 120; tries++) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  status = answer(
    'read the transfer',
    await institutionalGetTransfer({ client, path: { reference: sent.txRef } }),
  ).status;
}
console.log(`transfer ${sent.txRef} ${status}`);
if (status !== 'confirmed') process.exit(1);

const statement = answer('read the statement', await institutionalGetAccountStatement({ client, path: { id: from } }));
console.log(`statement of ${from}: ${statement.total} transactions`);
for (const t of statement.transactions)
  console.log(
    `  ${t.txRef}  ${t.direction.padEnd(8)} ${t.amount.padStart(10)}  ${t.status}  block ${t.blockNumber ?? '-'}`,
  );
