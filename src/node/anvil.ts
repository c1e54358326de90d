/**
 * Embedded Anvil (the npm package @foundry-rs/anvil ships the binary), started through prool.
 * spec: "Chain ID is 1111111"; "The gas price is always 0". Anvil never mines by itself here
 * (`--no-mining`): the block producer seals every block after choosing its QBFT proposer.
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { Instance } from 'prool';
import { endPreviousAnvil, guardAnvil } from './anvil-guardian.ts';

/** The chain ID of the permissioned network (spec: "Chain ID is 1111111 (hex 0x10F447)"). */
export const CHAIN_ID = 1111111;

/** A running Anvil child process. */
export type AnvilNode = { url: string; stop(): Promise<void> };

/** Path of the Anvil binary shipped by @foundry-rs/anvil-linux-amd64 (or another platform's package). */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'win32' }[process.platform as string];
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  const pkg = `@foundry-rs/anvil-${platform}-${arch}`;
  try {
    return path.join(
      path.dirname(require.resolve(`${pkg}/package.json`)),
      'bin',
      process.platform === 'win32' ? 'anvil.exe' : 'anvil',
    );
  } catch {
    throw new Error(
      `the Anvil binary package ${pkg} is not installed (run npm ci); or set CHAIN_RPC_URL to an existing node`,
    );
  }
}

/** Asks the OS for a free loopback port (free when asked; the caller binds it moments later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** prool's options of an Anvil of this chain. */
export type AnvilOptions = Parameters<typeof Instance.anvil>[0];

/**
 * The options of an Anvil of this chain on loopback `port`: chain 1111111, gas price 0 (DESIGN.md:
 * `--disable-min-priority-fee`, else eth_gasPrice is 1 gwei), no mining of its own, and `extra` (a state file,
 * a fork).
 */
export function chainAnvilOptions(
  port: number,
  extra: { state?: string; forkUrl?: string; forkBlockNumber?: number } = {},
): AnvilOptions {
  return {
    binary: anvilBinary(),
    host: '127.0.0.1',
    port,
    chainId: CHAIN_ID,
    gasPrice: 0n,
    blockBaseFeePerGas: 0n,
    disableMinPriorityFee: true,
    noMining: true,
    // D-151: no development accounts. Anvil's come from a published mnemonic ("test test … junk") whose keys
    // anyone can sign with; the funding account's key stays in the server and Anvil only sees its address.
    accounts: 0,
    ...extra,
  } as AnvilOptions;
}

/** Starts the chain's Anvil (see {@link chainAnvilOptions}). */
export async function startAnvil(options: { stateFile?: string } = {}): Promise<AnvilNode> {
  // A persisted chain must not lose blocks to a crash of this process (anvil-guardian.ts).
  if (options.stateFile) await endPreviousAnvil(options.stateFile);
  const port = await freePort();
  const instance = Instance.anvil(chainAnvilOptions(port, options.stateFile ? { state: options.stateFile } : {}));
  await instance.start();
  const pid = (instance._internal as { process?: { pid?: number } }).process?.pid;
  const guard = options.stateFile && pid ? guardAnvil(pid, options.stateFile) : undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await instance.stop(); // SIGTERM: Anvil writes its state file
      guard?.release();
    },
  };
}
