/**
 * `npm run bench -- crypto [--large-data]`: ACVP and Wycheproof run time per implementation, the
 * interop matrix, and ML-DSA-65 sign/verify and ML-KEM-768 encapsulate/decapsulate operations per
 * second per backend (OpenSSL through node:crypto, @noble/post-quantum, liboqs through @oqs/liboqs-js).
 */
import { decapsulate, encapsulate, generateKeyPairSync, sign, verify } from 'node:crypto';
import { createMLDSA65, createMLKEM768 } from '@oqs/liboqs-js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { runAcvp } from '../../conformance/crypto/acvp/run.ts';
import { IMPLEMENTATION_IDS } from '../../conformance/crypto/implementations.ts';
import { runInterop } from '../../conformance/crypto/interop/run.ts';
import { repoPath } from '../../src/paths.ts';
import { runWycheproof } from '../../conformance/crypto/wycheproof/run.ts';
import { mlDsa65 } from '../../src/crypto/ml-dsa.ts';
import { mlKem768 } from '../../src/crypto/ml-kem.ts';
import { type BenchFigure, figure, machine, reportResult } from './result.ts';

const DEFAULT_VECTORS_DIR = repoPath('vectors');
const largeData = process.argv.includes('--large-data');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const figures: BenchFigure[] = [];

/** Operations per second of `op`, over about `budgetMs` after a short warm-up. */
function opsPerSecond(op: () => unknown, budgetMs = 1500): number {
  for (let i = 0; i < 5; i++) op();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < budgetMs) {
    op();
    n += 1;
  }
  return n / ((performance.now() - start) / 1000);
}

console.log(
  `svckit crypto benchmark: node ${process.versions.node}, OpenSSL ${process.versions.openssl}${largeData ? ', with the SHA-3 large data tests' : ''}`,
);
console.log(`vectors: ${DEFAULT_VECTORS_DIR}\n`);

for (const impl of IMPLEMENTATION_IDS) {
  const acvp = runAcvp({ vectorsDir: DEFAULT_VECTORS_DIR, implementations: [impl], largeData });
  const counts = acvp.results.reduce(
    (a, r) => ({ run: a.run + r.counts.passed + r.counts.failed, total: a.total + r.counts.total }),
    { run: 0, total: 0 },
  );
  figures.push(figure(`ACVP run time, ${impl}`, acvp.durationMs / 1000, 's'));
  console.log(
    `ACVP       ${impl.padEnd(8)} ${seconds(acvp.durationMs).padStart(9)}  (${counts.run} of ${counts.total} cases run, the rest skipped)`,
  );
}
for (const impl of IMPLEMENTATION_IDS) {
  const wp = runWycheproof({ vectorsDir: DEFAULT_VECTORS_DIR, implementations: [impl] });
  const run = wp.results.reduce((n, r) => n + r.counts.passed + r.counts.failed, 0);
  figures.push(figure(`Wycheproof run time, ${impl}`, wp.durationMs / 1000, 's'));
  console.log(`Wycheproof ${impl.padEnd(8)} ${seconds(wp.durationMs).padStart(9)}  (${run} cases run)`);
}
const interop = await runInterop('bench');
figures.push(figure('interop matrix run time, 3 peers', interop.durationMs / 1000, 's'));
console.log(`Interop    3 peers  ${seconds(interop.durationMs).padStart(9)}  (${interop.summary.checks} checks)\n`);

const message = new TextEncoder().encode('1700000000000:POST:/api/v1/transfers');
const rows: [string, string, number][] = [];

// OpenSSL with keys already imported (the backend itself) and through the façade (bytes in, bytes out).
const dsaKeys = generateKeyPairSync('ml-dsa-65');
const opensslSig = sign(null, message, dsaKeys.privateKey);
rows.push(['ML-DSA-65 sign', 'OpenSSL (KeyObject)', opsPerSecond(() => sign(null, message, dsaKeys.privateKey))]);
rows.push([
  'ML-DSA-65 verify',
  'OpenSSL (KeyObject)',
  opsPerSecond(() => verify(null, message, dsaKeys.publicKey, opensslSig)),
]);
const facadeKeys = mlDsa65.keygen();
const facadeSig = mlDsa65.sign(facadeKeys.secretKey, message);
rows.push([
  'ML-DSA-65 sign',
  'façade (OpenSSL, seed bytes)',
  opsPerSecond(() => mlDsa65.sign(facadeKeys.secretKey, message)),
]);
rows.push([
  'ML-DSA-65 verify',
  'façade (OpenSSL, key bytes)',
  opsPerSecond(() => mlDsa65.verify(facadeKeys.publicKey, message, facadeSig)),
]);
const nobleKeys = ml_dsa65.keygen();
const nobleSig = ml_dsa65.sign(message, nobleKeys.secretKey);
rows.push(['ML-DSA-65 sign', '@noble/post-quantum', opsPerSecond(() => ml_dsa65.sign(message, nobleKeys.secretKey))]);
rows.push([
  'ML-DSA-65 verify',
  '@noble/post-quantum',
  opsPerSecond(() => ml_dsa65.verify(nobleSig, message, nobleKeys.publicKey)),
]);
const oqsDsa = await createMLDSA65();
const oqsKeys = oqsDsa.generateKeyPair();
const oqsSig = oqsDsa.sign(message, oqsKeys.secretKey);
rows.push(['ML-DSA-65 sign', 'liboqs (WebAssembly)', opsPerSecond(() => oqsDsa.sign(message, oqsKeys.secretKey))]);
rows.push([
  'ML-DSA-65 verify',
  'liboqs (WebAssembly)',
  opsPerSecond(() => oqsDsa.verify(message, oqsSig, oqsKeys.publicKey)),
]);
oqsDsa.destroy();

const kemKeys = generateKeyPairSync('ml-kem-768');
const kemCt = encapsulate(kemKeys.publicKey).ciphertext;
rows.push(['ML-KEM-768 encapsulate', 'OpenSSL (KeyObject)', opsPerSecond(() => encapsulate(kemKeys.publicKey))]);
rows.push([
  'ML-KEM-768 decapsulate',
  'OpenSSL (KeyObject)',
  opsPerSecond(() => decapsulate(kemKeys.privateKey, kemCt)),
]);
const facadeKem = mlKem768.keygen();
const facadeCt = mlKem768.encapsulate(facadeKem.publicKey).ciphertext;
rows.push([
  'ML-KEM-768 encapsulate',
  'façade (OpenSSL, key bytes)',
  opsPerSecond(() => mlKem768.encapsulate(facadeKem.publicKey)),
]);
rows.push([
  'ML-KEM-768 decapsulate',
  'façade (OpenSSL, seed bytes)',
  opsPerSecond(() => mlKem768.decapsulate(facadeKem.secretKey, facadeCt)),
]);
const nobleKem = ml_kem768.keygen();
const nobleCt = ml_kem768.encapsulate(nobleKem.publicKey).cipherText;
rows.push([
  'ML-KEM-768 encapsulate',
  '@noble/post-quantum',
  opsPerSecond(() => ml_kem768.encapsulate(nobleKem.publicKey)),
]);
rows.push([
  'ML-KEM-768 decapsulate',
  '@noble/post-quantum',
  opsPerSecond(() => ml_kem768.decapsulate(nobleCt, nobleKem.secretKey)),
]);
const oqsKem = await createMLKEM768();
const oqsKemKeys = oqsKem.generateKeyPair();
const oqsCt = oqsKem.encapsulate(oqsKemKeys.publicKey).ciphertext;
rows.push([
  'ML-KEM-768 encapsulate',
  'liboqs (WebAssembly)',
  opsPerSecond(() => oqsKem.encapsulate(oqsKemKeys.publicKey)),
]);
rows.push([
  'ML-KEM-768 decapsulate',
  'liboqs (WebAssembly)',
  opsPerSecond(() => oqsKem.decapsulate(oqsCt, oqsKemKeys.secretKey)),
]);
oqsKem.destroy();

console.log(`${'operation'.padEnd(24)} ${'backend'.padEnd(30)} ops/s`);
for (const [op, backend, rate] of rows)
  console.log(`${op.padEnd(24)} ${backend.padEnd(30)} ${rate.toFixed(0).padStart(7)}`);
for (const [op, backend, rate] of rows) figures.push(figure(`${op}, ${backend}`, rate, 'ops/s'));
reportResult({ bench: 'crypto', machine: machine(), figures });
