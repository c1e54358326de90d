/**
 * web3.js v4 on its default code path against {base}/rpc (D-260): `new Web3(url)` over HTTP, a wallet account,
 * `sendTransaction` and a contract deployment, with no fee or gas set by hand.
 */
import { Web3 } from 'web3';
import { ClientRun, describe, expectThat, type MatrixContext, NOTE } from './matrix.ts';

/** Runs the web3.js column of the matrix. */
export async function runWeb3(context: MatrixContext): Promise<ClientRun> {
  const run = new ClientRun('web3.js 4.16');
  const web3 = new Web3(context.rpcUrl);
  // Bounds web3's own wait for a receipt (750 s by default); the calls are bounded by the matrix as well.
  web3.eth.transactionPollingTimeout = 60_000;
  const account = web3.eth.accounts.wallet.add(await context.fundedKey(run.client)).get(0)!;
  await run.call(
    'getBlock(latest)',
    () => web3.eth.getBlock('latest'),
    (block) => `block ${block.number}, baseFeePerGas ${block.baseFeePerGas}`,
  );
  await run.call(
    'getBalance',
    () => web3.eth.getBalance(account.address),
    (balance) => {
      expectThat(balance > 0n, `the funded sender has ${balance}`);
      return `${balance} wei`;
    },
  );
  await run.call(
    'getStorageAt(slot 0)',
    () => web3.eth.getStorageAt(context.note, 0),
    (word) => {
      expectThat(word === `0x${'7'.padStart(64, '0')}`, `expected the 32-byte word 7, got ${word}`);
      return word;
    },
  );
  await run.call(
    'getFeeHistory(4, latest, [25, 75])',
    () => web3.eth.getFeeHistory(4, 'latest', [25, 75]),
    (history) => {
      expectThat(Array.isArray(history.baseFeePerGas), `no baseFeePerGas: ${describe(history)}`);
      return `oldestBlock ${history.oldestBlock}, ${history.baseFeePerGas.length} base fees`;
    },
  );
  const recipient = web3.eth.accounts.create().address;
  await run.call(
    'sendTransaction',
    () => web3.eth.sendTransaction({ from: account.address, to: recipient, value: web3.utils.toWei('0.5', 'ether') }),
    (receipt) => {
      expectThat(receipt.status === 1n, `receipt status ${receipt.status}`);
      return `type ${receipt.type}, mined in block ${receipt.blockNumber}`;
    },
  );
  const deployed = await run.call(
    'Contract.deploy().send()',
    () => new web3.eth.Contract(NOTE.abi as never).deploy({ data: NOTE.bytecode }).send({ from: account.address }),
    (contract) => `deployed at ${contract.options.address}`,
  );
  if (!deployed) {
    for (const name of ['methods.get().call()', 'getPastLogs']) run.notRun(name, 'the deployment');
    return run;
  }
  await run.call(
    'methods.get().call()',
    () => (deployed.methods as never as { get(): { call(): Promise<bigint> } }).get().call(),
    (value) => {
      expectThat(BigInt(value) === 7n, `expected 7, got ${value}`);
      return String(value);
    },
  );
  await run.call(
    'getPastLogs',
    async () => {
      const set = (deployed.methods as never as { set(v: number): { send(o: object): Promise<unknown> } }).set(42);
      await set.send({ from: account.address });
      return web3.eth.getPastLogs({ address: deployed.options.address!, fromBlock: 0 });
    },
    (logs) => {
      expectThat(logs.length >= 1, `no log of the Note contract: ${logs.length}`);
      return `${logs.length} log(s) after set(42)`;
    },
  );
  return run;
}
