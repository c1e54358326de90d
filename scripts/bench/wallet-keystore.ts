/**
 * `npm run bench -- wallet-keystore [--runs N]`: Argon2id unlock time of the wallet keystore with the chosen
 * parameters (D-120: RFC 9106 second recommended option, m = 64 MiB, t = 3, p = 4).
 *   node:crypto     openKeystore: Argon2id (OpenSSL) + AES-256-GCM (the Node library)
 *   @noble/hashes   openKeystoreWeb: Argon2id in JavaScript + WebCrypto AES-256-GCM (the extension's path)
 *   wallet unlock   Wallet.fromKeystore: the above plus the BIP-39 seed and the ML-DSA-65 identity
 */
import os from 'node:os';
import { openKeystoreWeb } from '../../extension/src/keystore-web.ts';
import { DEFAULT_ARGON2ID } from '../../src/client/wallet/keystore-format.ts';
import { openKeystore, sealWalletSecrets } from '../../src/client/wallet/keystore.ts';
import { Wallet } from '../../src/client/wallet/wallet.ts';
import { figure, machine, reportResult } from './result.ts';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 1) : 7;
const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Wall-clock times in ms of `runs` calls of `op` after one warm-up. */
async function time(op: () => Promise<unknown>, n: number): Promise<number[]> {
  await op();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await op();
    out.push(performance.now() - start);
  }
  return out;
}

const medianOf = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = medianOf(ms);
  return `median ${median.toFixed(0).padStart(5)} ms   min ${sorted[0]!.toFixed(0).padStart(5)} ms   max ${sorted.at(-1)!.toFixed(0).padStart(5)} ms   (${ms.length} runs)`;
};

const p = DEFAULT_ARGON2ID;
console.log(
  `svckit wallet keystore benchmark: node ${process.versions.node}, OpenSSL ${process.versions.openssl}, ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'})`,
);
console.log(
  `Argon2id v0x13 m = ${p.memoryKiB} KiB (${p.memoryKiB / 1024} MiB), t = ${p.passes}, p = ${p.parallelism}, 16-byte salt, 32-byte key; AES-256-GCM\n`,
);

const file = await sealWalletSecrets('correct horse battery staple', { mnemonic });
const nodeUnlock = await time(() => openKeystore('correct horse battery staple', file), runs);
console.log(`unlock, node:crypto Argon2id     ${stats(nodeUnlock)}`);
const webUnlock = await time(() => openKeystoreWeb('correct horse battery staple', file), Math.min(runs, 3));
console.log(`unlock, @noble/hashes Argon2id   ${stats(webUnlock)}`);
const walletUnlock = await time(() => Wallet.fromKeystore(file, 'correct horse battery staple'), runs);
console.log(`wallet unlock (keystore + seed + ML-DSA-65 identity)  ${stats(walletUnlock)}`);
reportResult({
  bench: 'wallet-keystore',
  machine: machine(),
  figures: [
    figure('unlock, node:crypto Argon2id (median)', medianOf(nodeUnlock), 'ms'),
    figure('unlock, @noble/hashes Argon2id (median)', medianOf(webUnlock), 'ms'),
    figure('wallet unlock: keystore, seed, ML-DSA-65 identity (median)', medianOf(walletUnlock), 'ms'),
  ],
  notes: [`Argon2id m = ${p.memoryKiB} KiB, t = ${p.passes}, p = ${p.parallelism}; ${runs} runs (3 for @noble/hashes)`],
});
