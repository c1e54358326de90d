/**
 * Surface C checks of the values the spec fixes: chain ID, network ID, gas price, the web3_sha3 hash and
 * eth_syncing. Read-only, so they run against any target with a base URL.
 */
import { keccak256, type Hex } from 'viem';
import type { Check, CheckVerdict } from '../../catalogue.ts';
import { defineCheck, call, ChainContract, result, verdictOf } from './support.ts';

/** The checks of fixed values on `{base_url}/rpc`. */
export function chainValueChecks(): Check[] {
  return [
    defineCheck({
      id: 'chain.eth_chainid.value',
      title: 'eth_chainId answers 0x10f447 (1111111)',
      source: { quote: 'Chain ID is 1111111 (hex 0x10F447).' },
      needs: ['rpc'],
      run: async ({ target }) => {
        const x = await call(target, 'eth_chainId');
        // EIP-1474 QUANTITY is lower-case hex, so 0x10F447 is sent as 0x10f447.
        return x.result === '0x10f447' && !x.error
          ? { status: 'passed', request: x.request }
          : {
              status: 'failed',
              reason: `eth_chainId expected "0x10f447", got ${x.http.text.slice(0, 200)}`,
              request: x.request,
              expected: '0x10f447',
              actual: x.http.json,
            };
      },
    }),
    defineCheck({
      id: 'chain.net_version',
      title: 'net_version answers the string "1111111"',
      source: { quote: 'The network ID string is 1111111.' },
      needs: ['rpc'],
      run: async ({ target }) => {
        const x = await call(target, 'net_version');
        return x.result === '1111111' && !x.error
          ? { status: 'passed', request: x.request }
          : {
              status: 'failed',
              reason: `net_version expected the string "1111111", got ${x.http.text.slice(0, 200)}`,
              request: x.request,
              expected: '1111111',
              actual: x.http.json,
            };
      },
    }),
    defineCheck({
      id: 'chain.gas_price_zero',
      title: 'eth_gasPrice is 0x0 and the latest block has base fee 0',
      source: { quote: 'The gas price is always 0 (free transactions for permissioned participants).' },
      needs: ['rpc'],
      run: async ({ target }) => {
        const problems: string[] = [];
        const price = (await call(target, 'eth_gasPrice')).result;
        if (price !== '0x0') problems.push(`eth_gasPrice expected "0x0", got ${JSON.stringify(price)}`);
        // A London block's base fee is the floor of every transaction's price: it must be 0 as well.
        const x = await call(target, 'eth_getBlockByNumber', ['latest', true]);
        const block = (x.result ?? { transactions: [] }) as {
          baseFeePerGas?: string;
          transactions: { gasPrice?: string; hash: string }[];
        };
        if (x.error || !x.result)
          problems.push(`eth_getBlockByNumber("latest") expected a block, got ${x.http.text.slice(0, 200)}`);
        if (block.baseFeePerGas !== undefined && block.baseFeePerGas !== '0x0')
          problems.push(`latest block baseFeePerGas expected "0x0", got ${JSON.stringify(block.baseFeePerGas)}`);
        for (const tx of block.transactions ?? []) {
          if (tx.gasPrice !== undefined && tx.gasPrice !== '0x0')
            problems.push(`transaction ${tx.hash} in the latest block has gasPrice ${tx.gasPrice}`);
        }
        return verdictOf(
          problems,
          `eth_gasPrice 0x0; latest block base fee ${block.baseFeePerGas ?? 'absent (pre-London)'}`,
          { request: x.request },
        );
      },
    }),
    defineCheck({
      id: 'chain.web3_sha3.value',
      title: 'web3_sha3 returns the keccak-256 hash of its input',
      source: { quote: 'DATA(32), keccak-256 hash' },
      run: async (ctx) => {
        const contract = await ChainContract.load(ctx);
        const problems: string[] = [];
        // "hello", the empty input, and 300 bytes (more than one keccak block of 136 bytes).
        const inputs: Hex[] = ['0x68656c6c6f', '0x', `0x${'ab'.repeat(300)}`];
        for (const input of inputs) {
          const got = await result(ctx.target, 'web3_sha3', [input]);
          problems.push(...contract.validateResult('web3_sha3', got));
          const want = keccak256(input);
          if (got !== want)
            problems.push(`web3_sha3(${input.slice(0, 14)}…) expected ${want}, got ${JSON.stringify(got)}`);
        }
        return verdictOf(problems, `keccak-256 of ${inputs.length} inputs (0, 5 and 300 bytes) matches viem's`);
      },
    }),
    defineCheck({
      id: 'chain.eth_syncing.caught_up',
      title: 'eth_syncing is false when caught up, a progress object only while behind',
      source: { quote: 'object {startingBlock, currentBlock, highestBlock} while syncing, false when caught up' },
      run: async (ctx): Promise<CheckVerdict> => {
        const contract = await ChainContract.load(ctx);
        const x = await call(ctx.target, 'eth_syncing');
        const problems = x.error
          ? [`eth_syncing answered error ${JSON.stringify(x.error)}`]
          : contract.validateResult('eth_syncing', x.result);
        const progress = x.result ? (x.result as { currentBlock?: string; highestBlock?: string }) : undefined;
        // An object whose current block has reached the highest one is "caught up", which must be false.
        if (
          progress?.currentBlock &&
          progress.highestBlock &&
          BigInt(progress.currentBlock) >= BigInt(progress.highestBlock)
        ) {
          problems.push(
            `eth_syncing reports progress ${JSON.stringify(progress)} although currentBlock has reached highestBlock`,
          );
        }
        return verdictOf(problems, x.result === false ? 'caught up: false' : `syncing: ${JSON.stringify(x.result)}`, {
          request: x.request,
        });
      },
    }),
  ];
}
