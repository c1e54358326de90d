/**
 * viem on its default code path (D-260): a public and a wallet client over `http` to {base}/rpc, and a public
 * client over `webSocket` to /ws for watchBlocks and watchContractEvent. No fee or gas is set by hand.
 */
import { createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket, type Abi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ClientRun, expectThat, type MatrixContext, NOTE } from './matrix.ts';

const abi = NOTE.abi as Abi;

/** Runs the viem column of the matrix. */
export async function runViem(context: MatrixContext): Promise<ClientRun> {
  const run = new ClientRun('viem 2.57');
  const chain = defineChain({
    id: 1111111,
    name: 'svckit',
    nativeCurrency: { name: 'Settlement unit', symbol: 'SVC', decimals: 18 },
    rpcUrls: { default: { http: [context.rpcUrl], webSocket: [context.wsUrl] } },
  });
  const client = createPublicClient({ chain, transport: http(context.rpcUrl) });
  const account = privateKeyToAccount(await context.fundedKey(run.client));
  const wallet = createWalletClient({ chain, transport: http(context.rpcUrl), account });
  await run.call(
    'getBlock(latest)',
    () => client.getBlock(),
    (block) => `block ${block.number}, baseFeePerGas ${block.baseFeePerGas}`,
  );
  await run.call(
    'getBalance',
    () => client.getBalance({ address: account.address }),
    (balance) => {
      expectThat(balance > 0n, `the funded sender has ${balance}`);
      return `${balance} wei`;
    },
  );
  await run.call(
    'getStorageAt(slot 0)',
    () => client.getStorageAt({ address: context.note, slot: '0x0' }),
    (word) => {
      expectThat(word === `0x${'7'.padStart(64, '0')}`, `expected the 32-byte word 7, got ${word}`);
      return String(word);
    },
  );
  await run.call(
    'sendTransaction (eip1559) + receipt',
    async () => {
      const hash = await wallet.sendTransaction({
        to: privateKeyToAccount(generatePrivateKey()).address,
        value: parseEther('0.5'),
      });
      return client.waitForTransactionReceipt({ hash, timeout: 30_000 });
    },
    (receipt) => {
      expectThat(receipt.status === 'success', `receipt status ${receipt.status}`);
      return `${receipt.type}, mined in block ${receipt.blockNumber}`;
    },
  );
  const note = await run.call(
    'deployContract (estimate without to)',
    async () => {
      const hash = await wallet.deployContract({ abi, bytecode: NOTE.bytecode });
      const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
      expectThat(receipt.contractAddress != null, `no contract address in ${hash}'s receipt`);
      return receipt.contractAddress!;
    },
    (address) => `deployed at ${address}`,
  );
  const ws = createPublicClient({ chain, transport: webSocket(context.wsUrl, { retryCount: 0 }) });
  try {
    await run.call(
      'watchBlocks over /ws',
      () =>
        new Promise<bigint>((resolve, reject) => {
          const stop = ws.watchBlocks({
            onBlock: (block) => {
              stop();
              resolve(block.number);
            },
            onError: (error) => {
              stop();
              reject(error);
            },
          });
        }),
      (number) => `block ${number} pushed`,
    );
    if (!note) {
      for (const name of [
        'readContract get()',
        'writeContract set(42) + receipt',
        'watchContractEvent over /ws',
        'getLogs',
      ])
        run.notRun(name, 'the deployment');
      return run;
    }
    await run.call(
      'readContract get()',
      () => client.readContract({ address: note, abi, functionName: 'get' }) as Promise<bigint>,
      (value) => {
        expectThat(value === 7n, `expected 7, got ${value}`);
        return String(value);
      },
    );
    // Subscribed before the write, so that the event has a watcher when its block comes.
    let stop = () => {};
    const seen = new Promise<bigint>((resolve, reject) => {
      stop = ws.watchContractEvent({
        address: note,
        abi,
        eventName: 'Stored',
        onLogs: (logs) => resolve(logs[0]!.blockNumber!),
        onError: reject,
      });
    });
    seen.catch(() => undefined);
    const written = await run.call(
      'writeContract set(42) + receipt',
      async () => {
        const hash = await wallet.writeContract({ address: note, abi, functionName: 'set', args: [42n] });
        return client.waitForTransactionReceipt({ hash, timeout: 30_000 });
      },
      (receipt) => {
        expectThat(receipt.status === 'success', `receipt status ${receipt.status}`);
        return `mined in block ${receipt.blockNumber}`;
      },
    );
    await run.call(
      'watchContractEvent over /ws',
      () => seen,
      (number) => `Stored pushed from block ${number}`,
    );
    stop();
    if (!written) {
      run.notRun('getLogs', 'set(42)');
      return run;
    }
    await run.call(
      'getLogs',
      () => client.getLogs({ address: note, fromBlock: written.blockNumber, toBlock: written.blockNumber }),
      (logs) => {
        expectThat(
          logs.length === 1,
          `expected the one Stored log of block ${written.blockNumber}, got ${logs.length}`,
        );
        return `${logs.length} log, topic ${logs[0]!.topics[0]}`;
      },
    );
    return run;
  } finally {
    await ws.transport
      .getRpcClient?.()
      .then((socket) => socket.close())
      .catch(() => undefined);
  }
}
