/**
 * The client matrix (D-260), run by `npm run test:clients` and .ci/run: the Ethereum clients people use, each on
 * its own default code path, against a fresh `svckit serve` process (its own data directory, ephemeral ports,
 * the classical-TLS listener of D-259 on). The administrator allow-lists and funds one fresh key per client
 * (POST /admin/v1/chain/accounts, D-152); no client is given a fee or gas by hand.
 *
 * - ethers v6, web3.js v4, viem: blocks, balances, a padded storage slot, logs, a transfer, a deployment of the
 *   Note contract (scripts/client-matrix/note.sol) and a call to it; ethers follows its events with
 *   `contract.on` over HTTP polling, web3.js reads the fee history, viem watches blocks and the contract's events
 *   over /ws;
 * - Foundry's cast: chain-id, block, balance, storage, `send` and `send --create`, through the classical listener.
 *
 * It prints one row per client and call with the answer, and exits 1 when any call failed.
 *
 *   npm run test:clients
 */
import tls from 'node:tls';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { freePort } from '../src/node/anvil.ts';
import { startServe, type ServeProcess } from '../test/readme/serve-process.ts';
import { runCast } from './client-matrix/cast.ts';
import { runEthers } from './client-matrix/ethers.ts';
import { describe, formatTable, type MatrixContext, NOTE, type Row, within } from './client-matrix/matrix.ts';
import { runViem } from './client-matrix/viem.ts';
import { runWeb3 } from './client-matrix/web3.ts';

/** What each client's sender is funded with, in units of the native currency. */
const FUNDING = '100.00';

/** An admin API call; throws naming the operation and the answer unless the status is `expected`. */
async function admin(serve: ServeProcess, path: string, body: unknown, expected: number): Promise<unknown> {
  const response = await fetch(`${serve.ready.base}/admin/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.ready.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`POST /admin/v1/${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** A JSON-RPC call of the matrix's own set-up; throws with the error object. */
async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await response.json()) as { result?: T; error?: unknown };
  if (answer.error !== undefined) throw new Error(`${method}: ${describe(answer.error)}`);
  return answer.result as T;
}

/**
 * The Note contract the reads look at, deployed by the matrix with a raw transaction whose gas is given, so that
 * it needs no estimate: the clients' own deployments are rows of the matrix, the reads are not.
 */
async function deployReadNote(serve: ServeProcess, rpcUrl: string): Promise<`0x${string}`> {
  const account = privateKeyToAccount(generatePrivateKey());
  await admin(serve, 'chain/accounts', { address: account.address, amount: FUNDING }, 201);
  const raw = await account.signTransaction({
    chainId: 1111111,
    type: 'legacy',
    nonce: 0,
    gas: 200_000n,
    gasPrice: 0n,
    data: NOTE.bytecode,
  });
  const hash = await rpc<string>(rpcUrl, 'eth_sendRawTransaction', [raw]);
  const receipt = await within(
    (async () => {
      for (;;) {
        const found = await rpc<{ contractAddress: `0x${string}`; status: string } | null>(
          rpcUrl,
          'eth_getTransactionReceipt',
          [hash],
        );
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })(),
    30_000,
    `the receipt of the Note deployment ${hash}`,
  );
  if (receipt.status !== '0x1') throw new Error(`the Note deployment ${hash} reverted`);
  return receipt.contractAddress;
}

async function main(): Promise<number> {
  const started = Date.now();
  // Outside its calls, a client's background error is reported, and the matrix goes on to stop the server.
  process.on('unhandledRejection', (error) =>
    console.error(`client matrix: a client's background work failed outside its calls: ${describe(error)}`),
  );
  // A fresh server as a new user starts it, with the classical listener of D-259 on an ephemeral port; the
  // background evidence build (D-153) is left out: it would only take CPU from the clients.
  const serve = await startServe({
    SVC_RPC_CLASSICAL_PORT: String(await freePort()),
    SVC_EVIDENCE_AT_START: 'false',
  });
  const rows: Row[] = [];
  try {
    const { ready } = serve;
    if (!ready.rpcClassical || !ready.adminToken) throw new Error(`the ready line lacks rpcClassical or adminToken`);
    // NODE_EXTRA_CA_CERTS in this process: the in-process clients trust the development CA.
    const { readFileSync } = await import('node:fs');
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(ready.caCert, 'utf8')]);
    const rpcUrl = `${ready.base}/rpc`;
    const wsKey = (await admin(
      serve,
      'api-keys',
      { name: 'client-matrix', permissions: ['chain:subscribe'] },
      201,
    )) as {
      token: string;
    };
    const context: MatrixContext = {
      rpcUrl,
      classicalRpcUrl: `${ready.rpcClassical}/rpc`,
      // D-261: viem's webSocket transport cannot set headers; the key goes in the URL.
      wsUrl: `${ready.base.replace(/^https/, 'wss')}/ws?access_token=${wsKey.token}`,
      caCertPath: ready.caCert,
      note: await deployReadNote(serve, rpcUrl),
      fundedKey: async () => {
        const key = generatePrivateKey();
        await admin(serve, 'chain/accounts', { address: privateKeyToAccount(key).address, amount: FUNDING }, 201);
        return key;
      },
    };
    for (const client of [runEthers, runWeb3, runViem, runCast]) {
      try {
        rows.push(...(await client(context)).rows);
      } catch (error) {
        rows.push({ client: client.name.replace(/^run/, ''), call: 'set-up', ok: false, answer: describe(error) });
      }
    }
  } finally {
    const { code, stderr } = await serve.stop();
    if (code !== 0)
      rows.push({ client: 'svckit serve', call: 'stop', ok: false, answer: `exit ${code}: ${stderr.slice(-500)}` });
  }
  console.log(formatTable(rows));
  const failed = rows.filter((row) => !row.ok);
  console.log(
    `\nclient matrix: ${rows.length - failed.length} of ${rows.length} calls ok, ${failed.length} failed (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`client matrix: ${describe(error)}`);
    process.exit(1);
  },
);
