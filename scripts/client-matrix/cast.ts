/**
 * Foundry's cast (npm @foundry-rs/cast) on its default code path (D-260), as a process: chain-id, block,
 * balance, storage, `send` without `--legacy` and `send --create`, with no fee or gas set by hand. Its TLS stack
 * offers no X25519MLKEM768, so it goes through the classical-TLS listener of /rpc (D-259); it trusts the
 * development CA through SSL_CERT_FILE.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { Wallet } from 'ethers';
import { REPO_ROOT } from '../../src/paths.ts';
import { ClientRun, expectThat, type MatrixContext, NOTE } from './matrix.ts';

const CAST = path.join(REPO_ROOT, 'node_modules', '.bin', 'cast');

/** Runs `cast …args --rpc-url url`; resolves with its stdout, rejects with its stderr. */
function cast(context: MatrixContext, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      CAST,
      // The options before `--create`: cast reads everything after its <CODE> as the constructor's arguments.
      [args[0]!, '--rpc-url', context.classicalRpcUrl, ...args.slice(1)],
      { env: { ...process.env, SSL_CERT_FILE: context.caCertPath }, timeout: 55_000, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        // The npm package's wrapper (bin.mjs) exits 0 whatever cast's own exit code: cast's `Error:` on stderr
        // is the failure then, and so is an empty answer.
        const text = stripVTControlCharacters(stderr).trim();
        if (error || /^Error:/m.test(text) || stdout.trim() === '')
          reject(new Error(`cast ${args[0]}: ${text || error?.message || 'no output'}`));
        else resolve(stdout.trim());
      },
    );
  });
}

/** Runs the cast column of the matrix. */
export async function runCast(context: MatrixContext): Promise<ClientRun> {
  const run = new ClientRun('cast 1.7.1');
  const key = await context.fundedKey(run.client);
  const address = new Wallet(key).address;
  await run.call(
    'cast chain-id',
    () => cast(context, ['chain-id']),
    (out) => {
      expectThat(out === '1111111', `expected 1111111, got ${out}`);
      return out;
    },
  );
  await run.call(
    'cast block latest',
    () => cast(context, ['block', 'latest', '--json']),
    (out) => {
      const block = JSON.parse(out) as { number?: string };
      expectThat(typeof block.number === 'string', `no block number in ${out.slice(0, 200)}`);
      return `block ${BigInt(block.number!)}`;
    },
  );
  await run.call(
    'cast balance',
    () => cast(context, ['balance', address]),
    (out) => {
      expectThat(/^\d+$/.test(out) && BigInt(out) > 0n, `the funded sender has ${out}`);
      return `${out} wei`;
    },
  );
  await run.call(
    'cast storage (slot 0)',
    () => cast(context, ['storage', context.note, '0']),
    (out) => {
      expectThat(out === `0x${'7'.padStart(64, '0')}`, `expected the 32-byte word 7, got ${out}`);
      return out;
    },
  );
  await run.call(
    'cast send (no --legacy)',
    () => cast(context, ['send', '--json', '--private-key', key, Wallet.createRandom().address, '--value', '0.5ether']),
    (out) => {
      const receipt = JSON.parse(out) as { status?: string; type?: string; blockNumber?: string };
      expectThat(receipt.status === '0x1', `receipt status ${receipt.status}`);
      return `type ${receipt.type}, mined in block ${BigInt(receipt.blockNumber ?? '0')}`;
    },
  );
  await run.call(
    'cast send --create',
    () => cast(context, ['send', '--json', '--private-key', key, '--create', NOTE.bytecode]),
    (out) => {
      const receipt = JSON.parse(out) as { status?: string; contractAddress?: string };
      expectThat(receipt.status === '0x1' && !!receipt.contractAddress, `receipt ${out.slice(0, 200)}`);
      return `deployed at ${receipt.contractAddress}`;
    },
  );
  return run;
}
