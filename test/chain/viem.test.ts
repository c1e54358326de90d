// A stock viem public and wallet client (viem's `http` transport, Node's built-in
// fetch) pointed at {base_url}/rpc of the reference stack, trusting the development CA. The CA is added to
// Node's default trust store with tls.setDefaultCACertificates, the in-process equivalent of
// NODE_EXTRA_CA_CERTS (test/support/stack.ts: trustTestCa, which replaces an earlier test stack's CA).
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  toHex,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { devAccount, PING_INIT_CODE, PING_TOPIC } from '../../conformance/checks/chain/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { trustTestCa } from '../support/stack.ts';

let target: Target;
let publicClient: ReturnType<typeof makeClients>['publicClient'];
let walletClient: ReturnType<typeof makeClients>['walletClient'];

function makeClients(rpcUrl: string, account: PrivateKeyAccount) {
  const chain = defineChain({
    id: 1111111,
    name: 'svckit reference',
    nativeCurrency: { name: 'Settlement unit', symbol: 'SVC', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return {
    publicClient: createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 }),
    walletClient: createWalletClient({ chain, transport: http(rpcUrl), account }),
  };
}

/** The round-robin proposer of block n: the sorted validator set's entry at n mod size. */
async function proposerOf(blockNumber: bigint): Promise<string> {
  // A method viem does not type: the client's EIP-1193 request function takes any method name.
  const request = publicClient.request as unknown as (args: { method: string; params: unknown[] }) => Promise<Hex[]>;
  const validators = await request({ method: 'qbft_getValidatorsByBlockNumber', params: [toHex(blockNumber)] });
  const sorted = validators.map((a) => a.toLowerCase()).sort();
  return sorted[Number(blockNumber % BigInt(sorted.length))]!;
}

beforeAll(async () => {
  target = await sharedReferenceTarget();
  trustTestCa(target.caCert!);
  // The client's own fresh key, allow-listed and funded by the administrator (D-152).
  ({ publicClient, walletClient } = makeClients(new URL('rpc', target.base).href, await devAccount(target)));
});

describe('a stock viem client against the gateway', () => {
  it('reads chain ID 1111111, the gas price 0, blocks and balances', async () => {
    expect(await publicClient.getChainId()).toBe(1111111);
    expect(await publicClient.getGasPrice()).toBe(0n);
    const block = await publicClient.getBlock({ blockTag: 'latest' });
    expect(block.number).toBe(await publicClient.getBlockNumber());
    expect(block.baseFeePerGas).toBe(0n);
    expect(await publicClient.getBalance({ address: walletClient.account.address })).toBeGreaterThan(
      parseEther('1000'),
    );
  });

  it('sends a transfer with gas price 0: it is mined by the round-robin proposer and costs no gas', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const before = await publicClient.getBalance({ address: walletClient.account.address });
    const hash = await walletClient.sendTransaction({ to: recipient, value: parseEther('1.5'), gasPrice: 0n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.effectiveGasPrice).toBe(0n);
    const tx = await publicClient.getTransaction({ hash });
    expect(tx.gasPrice).toBe(0n);
    expect(tx.blockNumber).toBe(receipt.blockNumber);
    // Free gas: the sender pays exactly the value, the recipient gets exactly the value.
    expect(await publicClient.getBalance({ address: recipient })).toBe(parseEther('1.5'));
    expect(await publicClient.getBalance({ address: walletClient.account.address })).toBe(before - parseEther('1.5'));
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.transactions).toContain(hash);
    expect(block.miner.toLowerCase()).toBe(await proposerOf(receipt.blockNumber));
  });

  it('deploys a contract, reads its logs through receipts and eth_getLogs', async () => {
    const deployHash = await walletClient.sendTransaction({ data: PING_INIT_CODE, gasPrice: 0n });
    const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash });
    expect(deployed.status).toBe('success');
    const address = deployed.contractAddress!;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const callHash = await walletClient.sendTransaction({ to: address, gasPrice: 0n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash: callHash });
    expect(receipt.logs).toHaveLength(1);
    expect(receipt.logs[0]!.topics[0]).toBe(PING_TOPIC);
    expect(BigInt(receipt.logs[0]!.data)).toBe(42n);
    const logs = await publicClient.getLogs({ address, fromBlock: deployed.blockNumber, toBlock: 'latest' });
    expect(logs.map((l) => l.transactionHash)).toEqual([callHash]);
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.miner.toLowerCase()).toBe(await proposerOf(receipt.blockNumber));
  });

  it("sends with viem's default EIP-1559 fee estimation, which resolves to zero fees", async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await walletClient.sendTransaction({ to: recipient, value: 1n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.effectiveGasPrice).toBe(0n);
    expect(receipt.type).toBe('eip1559');
  });

  it('is refused, with viem surfacing -32007, when the sender was never funded (D-050)', async () => {
    const stranger = createWalletClient({
      chain: walletClient.chain,
      transport: http(new URL('rpc', target.base).href),
      account: privateKeyToAccount(generatePrivateKey()),
    });
    const error = await stranger
      .sendTransaction({ to: stranger.account.address, value: 0n, gasPrice: 0n, gas: 21_000n })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BaseError);
    const rpcError = (error as BaseError).walk((e) => (e as { code?: number }).code === -32007) as {
      code: number;
      details: string;
    } | null;
    expect(rpcError?.code).toBe(-32007);
    expect(rpcError?.details).toBe('Sender account not authorized to send transactions');
  });
});
