/**
 * `npm run bench -- wallet`: sessions per second through POST /auth/challenge and POST /auth/verify over real TLS (X25519MLKEM768) to the wallet origin of an in-process reference stack, D-024 limits
 * lifted. Each session is a fresh challenge, both client signatures (EIP-191 secp256k1 and ML-DSA-65) and a
 * verify that checks both and signs an ML-DSA-65 JWT. The clients run in worker threads, so their signing is
 * not billed to the server; the server's main-thread busy time per session comes from its event-loop
 * utilisation. Then the server-side pieces alone, in-process.
 *
 * Settings: BENCH_SESSIONS (default 400 per concurrency level), BENCH_WORKERS (default 4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { SignJWT, jwtVerify } from 'jose';
import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { registrationMessage } from '../../src/client/wallet/session-messages.ts';
import { OffsetClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { mlDsa65, sha3_256, toHex } from '../../src/crypto/index.ts';
import { listen } from '../../src/server/main.ts';
import { serviceKeyFromSeed } from '../../src/server/wallet/keys.ts';
import { type BenchFigure, figure, machine, reportResult } from './result.ts';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 400);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const LEVELS = [1, 8, 32];
const figures: BenchFigure[] = [];

/** A client in a worker: logs in `total` times over `concurrency` loops, returning latencies (ms). Plain JS. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { createPrivateKey, sign } = require('node:crypto');
const { secp256k1 } = require('@noble/curves/secp256k1.js');
const { keccak_256 } = require('@noble/hashes/sha3.js');
const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: workerData.ca });
const post = (path, body) => new Promise((resolve, reject) => {
  const data = JSON.stringify(body);
  const req = https.request(workerData.url + path, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
    let text = ''; res.setEncoding('utf8'); res.on('data', (c) => (text += c));
    res.on('end', () => res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(path + ': HTTP ' + res.statusCode + ' ' + text.slice(0, 200))));
  });
  req.on('error', reject); req.end(data);
});
const ids = workerData.identities.map((i) => ({ ...i, pq: createPrivateKey({ key: Buffer.from(i.seed, 'hex'), format: 'raw-seed', asymmetricKeyType: 'ml-dsa-65' }), sk: Buffer.from(i.evmKey.slice(2), 'hex') }));
function personalSign(sk, message) {
  const body = Buffer.from(message, 'utf8');
  const digest = keccak_256(Buffer.concat([Buffer.from('\\x19Ethereum Signed Message:\\n' + body.length), body]));
  const sig = secp256k1.sign(digest, sk, { prehash: false, format: 'recovered' });
  return '0x' + Buffer.from(sig.subarray(1)).toString('hex') + (27 + sig[0]).toString(16);
}
async function login(id) {
  const { message } = await post('auth/challenge', { address: id.address, svcId: id.svcId });
  const pqSig = sign(null, Buffer.from(message, 'utf8'), id.pq).toString('hex');
  const { token } = await post('auth/verify', { address: id.address, svcId: id.svcId, ecdsaSig: personalSign(id.sk, message), pqSig });
  if (!token) throw new Error('no token');
}
parentPort.on('message', async ({ total, concurrency, offset }) => {
  try {
    const latencies = []; let issued = 0;
    await Promise.all(Array.from({ length: concurrency }, async (_, slot) => {
      const id = ids[(offset + slot) % ids.length];
      while (issued < total) { issued++; const t0 = performance.now(); await login(id); latencies.push(performance.now() - t0); }
    }));
    parentPort.postMessage({ latencies });
  } catch (error) { parentPort.postMessage({ error: String(error && error.message || error) }); }
});
`;

type Identity = { seed: string; publicKey: string; svcId: string; evmKey: string; address: string };

function identity(): Identity {
  const pq = mlDsa65.keygen();
  const evmKey = generatePrivateKey();
  return {
    seed: toHex(pq.secretKey),
    publicKey: toHex(pq.publicKey),
    svcId: toHex(sha3_256(pq.publicKey).subarray(0, 8)),
    evmKey,
    address: privateKeyToAccount(evmKey).address,
  };
}

/** The signed registration body (D-147): the identity key's proof over svcId and issuedAt. */
function registration(id: Identity, issuedAt: string): Record<string, unknown> {
  // D-208: a challenge is issued only for an address registered to the svcId.
  const keys = [{ chainId: '1111111', address: id.address }];
  const message = new TextEncoder().encode(registrationMessage({ svcId: id.svcId, issuedAt, keys }));
  const proof = toHex(mlDsa65.sign(Buffer.from(id.seed, 'hex'), message));
  return { svcId: id.svcId, pqPublicKey: id.publicKey, keys, issuedAt, proof };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-bench-wallet-'));
  const config = loadConfig({
    // D-024 limits lifted for the benchmark only (5 /auth requests per second would cap it at 2.5 sessions/s).
    SVC_RATE_LIMIT_WALLET: '0',
    SVC_RATE_LIMIT_WALLET_AUTH: '0',
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
  });
  const clock = new OffsetClock();
  const { stack, ready } = await listen(config, { clock, logLevel: 'silent' });
  try {
    const maxLevel = Math.max(...LEVELS);
    const identities = Array.from({ length: WORKERS * maxLevel }, identity);
    for (const id of identities) {
      const res = await stack.wallet.inject({
        method: 'POST',
        url: '/wallets/register',
        payload: registration(id, new Date(clock.now()).toISOString()),
      });
      if (res.statusCode !== 200) throw new Error(`register: ${res.statusCode} ${res.body}`);
    }
    const workers = Array.from(
      { length: WORKERS },
      (_, w) =>
        new Worker(CLIENT, {
          eval: true,
          workerData: {
            url: `${ready.wallet}/`,
            ca: stack.tls.caCert,
            identities: identities.slice(w * maxLevel, (w + 1) * maxLevel),
          },
        }),
    );
    const run = (w: Worker, job: { total: number; concurrency: number; offset: number }) =>
      new Promise<number[]>((resolve, reject) => {
        w.once('message', (m: { latencies?: number[]; error?: string }) =>
          m.error ? reject(new Error(m.error)) : resolve(m.latencies!),
        );
        w.postMessage(job);
      });
    console.log(
      `wallet sessions (challenge + both client signatures + verify), ${WORKERS} client workers, TLS ${ready.wallet}`,
    );
    console.log('concurrency  sessions  sessions/s  p50 ms  p99 ms  server main-thread busy ms/session');
    for (const level of LEVELS) {
      const perWorker = Math.max(1, Math.ceil(level / WORKERS));
      const workersUsed = level === 1 ? 1 : WORKERS;
      await Promise.all(
        workers.slice(0, workersUsed).map((w) => run(w, { total: 20, concurrency: perWorker, offset: 0 })),
      );
      const elu0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      const parts = await Promise.all(
        workers
          .slice(0, workersUsed)
          .map((w) => run(w, { total: Math.ceil(SESSIONS / workersUsed), concurrency: perWorker, offset: 0 })),
      );
      const wall = performance.now() - t0;
      const elu = performance.eventLoopUtilization(elu0);
      const all = parts.flat().sort((a, b) => a - b);
      const busy = (elu.active / all.length).toFixed(2);
      const concurrency = workersUsed * perWorker;
      figures.push(
        figure(`sessions per second, concurrency ${concurrency}`, (all.length / wall) * 1000, 'sessions/s'),
        figure(`session p50, concurrency ${concurrency}`, quantile(all, 0.5), 'ms'),
        figure(`server main-thread busy per session, concurrency ${concurrency}`, elu.active / all.length, 'ms'),
      );
      console.log(
        `${String(workersUsed * perWorker).padStart(11)}  ${String(all.length).padStart(8)}  ${((all.length / wall) * 1000).toFixed(1).padStart(10)}  ${quantile(all, 0.5).toFixed(1).padStart(6)}  ${quantile(all, 0.99).toFixed(1).padStart(6)}  ${busy.padStart(10)}`,
      );
    }
    await Promise.all(workers.map((w) => w.terminate()));
    await pieces();
  } finally {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The server-side steps of a verify, alone (median of N). */
async function pieces(): Promise<void> {
  const N = 300;
  const timeIt = async (fn: () => unknown | Promise<unknown>) => {
    const t: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      await fn();
      t.push(performance.now() - t0);
    }
    return quantile(
      t.sort((a, b) => a - b),
      0.5,
    );
  };
  const pq = mlDsa65.keygen();
  const msg = new TextEncoder().encode('x'.repeat(330));
  const sig = mlDsa65.sign(pq.secretKey, msg);
  const account = privateKeyToAccount(generatePrivateKey());
  const ecdsa = await account.signMessage({ message: 'x'.repeat(330) });
  const key = await serviceKeyFromSeed(new Uint8Array(32).fill(1));
  const token = await new SignJWT({ sub: 'a' })
    .setProtectedHeader({ alg: 'ML-DSA-65', kid: key.kid })
    .sign(key.privateKey);
  const pieceTimes: [string, number][] = [
    ['ML-DSA-65 verify (pqSig, OpenSSL)', await timeIt(() => mlDsa65.verify(pq.publicKey, msg, sig))],
    [
      'EIP-191 recover (ecdsaSig, viem)',
      await timeIt(() => recoverMessageAddress({ message: 'x'.repeat(330), signature: ecdsa })),
    ],
    [
      'JWT sign, ML-DSA-65 (jose)',
      await timeIt(() =>
        new SignJWT({ sub: 'a' }).setProtectedHeader({ alg: 'ML-DSA-65', kid: key.kid }).sign(key.privateKey),
      ),
    ],
    [
      'JWT verify, ML-DSA-65 (jose)',
      await timeIt(() => jwtVerify(token, key.publicKey, { algorithms: ['ML-DSA-65'] })),
    ],
  ];
  console.log('\nserver-side pieces, median of %d (ms):', N);
  for (const [name, value] of pieceTimes) {
    console.log('  %s %s', name.padEnd(38), value.toFixed(3));
    figures.push(figure(`server-side piece: ${name} (median)`, value, 'ms'));
  }
}

await main();
reportResult({ bench: 'wallet', machine: machine(), figures });
