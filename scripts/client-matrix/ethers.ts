/**
 * ethers v6 on its default code path against {base}/rpc (D-260): a JsonRpcProvider over HTTP, a Wallet, a
 * ContractFactory, and `contract.on` over the provider's own HTTP polling. No fee or gas is set by hand.
 */
import { Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther, toBeHex, zeroPadValue } from 'ethers';
import { ClientRun, describe, escapedError, expectThat, type MatrixContext, NOTE, within } from './matrix.ts';

/** Runs the ethers column of the matrix. */
export async function runEthers(context: MatrixContext): Promise<ClientRun> {
  const run = new ClientRun('ethers 6.17');
  const provider = new JsonRpcProvider(context.rpcUrl);
  const wallet = new Wallet(await context.fundedKey(run.client), provider);
  try {
    await run.call(
      'getBlock(latest)',
      () => provider.getBlock('latest'),
      (block) => {
        expectThat(block !== null && block.number >= 0, `no block: ${String(block)}`);
        return `block ${block!.number}, baseFeePerGas ${block!.baseFeePerGas}`;
      },
    );
    await run.call(
      'getBalance',
      () => provider.getBalance(wallet.address),
      (balance) => {
        expectThat(balance > 0n, `the funded sender has ${balance}`);
        return `${balance} wei`;
      },
    );
    await run.call(
      'getStorage(slot 0)',
      () => provider.getStorage(context.note, 0),
      (word) => {
        expectThat(word === zeroPadValue(toBeHex(7), 32), `expected the 32-byte word 7, got ${word}`);
        return word;
      },
    );
    const recipient = Wallet.createRandom().address;
    // ethers' fee heuristic reads a base fee of 0 as no EIP-1559 (`if (block.baseFeePerGas)`), so on this
    // chain its untyped default is a legacy transaction; the type is asked for, the fees are left to ethers.
    await run.call(
      'sendTransaction({type: 2}) + wait',
      async () => {
        const tx = await wallet.sendTransaction({ type: 2, to: recipient, value: parseEther('0.5') });
        return { type: tx.type, receipt: await tx.wait(1, 30_000) };
      },
      ({ type, receipt }) => {
        expectThat(type === 2, `sent as type ${type}, not 2`);
        expectThat(receipt?.status === 1, `receipt status ${receipt?.status}`);
        return `type ${type}, mined in block ${receipt!.blockNumber}`;
      },
    );
    const deployed = await run.call(
      'ContractFactory.deploy (estimate without to)',
      async () => {
        const contract = await new ContractFactory(NOTE.abi, NOTE.bytecode, wallet).deploy();
        await within(contract.waitForDeployment(), 30_000, 'waitForDeployment');
        return contract;
      },
      (contract) => `deployed at ${String(contract.target)}`,
    );
    if (!deployed) {
      for (const name of ['contract.get()', 'contract.on(Stored) + set(42)', 'getLogs'])
        run.notRun(name, 'the deployment');
      return run;
    }
    const note = new Contract(String(deployed.target), NOTE.abi, wallet);
    await run.call(
      'contract.get()',
      () => note.getFunction('get').staticCall() as Promise<bigint>,
      (value) => {
        expectThat(value === 7n, `expected 7, got ${value}`);
        return String(value);
      },
    );
    const event = await run.call(
      'contract.on(Stored) + set(42)',
      async () => {
        const seen = new Promise<{ from: string; value: bigint; blockNumber: number }>((resolve) => {
          void note.on('Stored', (from: string, value: bigint, payload: { log: { blockNumber: number } }) =>
            resolve({ from, value, blockNumber: payload.log.blockNumber }),
          );
        });
        // ethers polls for the event in the background; an error of that polling is this call's answer.
        const escaped = escapedError();
        try {
          const tx = (await note.getFunction('set').send(42n)) as {
            wait(confirms: number, timeout: number): Promise<unknown>;
          };
          await tx.wait(1, 30_000);
          return await within(Promise.race([seen, escaped.error]), 30_000, 'the Stored event through contract.on');
        } catch (error) {
          // ethers logs its polling errors and rejects with the first one only once the listener is removed.
          await note.removeAllListeners();
          await new Promise((resolve) => setTimeout(resolve, 200));
          throw escaped.last === undefined
            ? error
            : new Error(`${describe(error)}; ethers' event polling: ${describe(escaped.last)}`);
        } finally {
          escaped.disarm();
          await note.removeAllListeners();
        }
      },
      ({ from, value, blockNumber }) => {
        expectThat(from === wallet.address && value === 42n, `got Stored(${from}, ${value})`);
        return `Stored(${from}, 42) in block ${blockNumber}`;
      },
    );
    await run.call(
      'getLogs',
      () => provider.getLogs({ address: String(deployed.target), fromBlock: event?.blockNumber ?? 0 }),
      (logs) => {
        expectThat(logs.length >= 1, `no log of the Note contract: ${logs.length}`);
        return `${logs.length} log(s), topic ${logs[0]!.topics[0]}`;
      },
    );
    return run;
  } finally {
    provider.destroy();
  }
}
