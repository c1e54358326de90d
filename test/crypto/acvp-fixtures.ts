// Vector layouts the repository's files do not have, built at test time in a temporary folder:
// altered expected values, plain and array-wrapped files with keys at group level, and the
// FIPS203-tr1 / FIPS204-tr1 "keyFormat" groups.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMLKEM768 } from '@oqs/liboqs-js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { type AcvpFile, acvpFile, REPO_VECTORS } from './vector-files.ts';

/** A test case written into a fixture: its tcId and hex fields. */
type WrittenCase = Record<string, string | number>;
/** The header fields of a vector set. */
type SetHeader = { algorithm: string; mode: string; revision: string };
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
const bytes = (label: string, n: number) => {
  const out = Buffer.alloc(n);
  for (let i = 0; i * 32 < n; i++)
    createHash('sha256')
      .update(`${label}/${i}`)
      .digest()
      .copy(out, i * 32);
  return new Uint8Array(out);
};

function writeSet(
  root: string,
  name: string,
  header: SetHeader,
  prompt: object[],
  expected: object[],
  wrap = false,
): void {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const body = { vsId: 7, ...header, isSample: true, testGroups: prompt };
  writeFileSync(join(dir, 'prompt.json'), JSON.stringify(wrap ? [{ acvVersion: '1.0' }, body] : body));
  writeFileSync(
    join(dir, 'expectedResults.json'),
    JSON.stringify({ vsId: 7, ...header, isSample: true, testGroups: expected }),
  );
}

/**
 * Copies one repository set with one expected value altered by `mutate`. `into` "expectedResults" writes
 * an altered plain expectedResults beside the set's gzipped prompt (or the internalProjection carried
 * instead); "internalProjection" alters the internalProjection itself, the set's only file.
 */
export function writeAlteredSet(
  set: string,
  mutate: (expected: AcvpFile) => { tgId: number; tcId: number },
  into: 'expectedResults' | 'internalProjection' = 'expectedResults',
): { path: string; altered: { tgId: number; tcId: number } } {
  const root = mkdtempSync(join(tmpdir(), 'svckit-acvp-altered-'));
  const dir = join(root, set);
  mkdirSync(dir);
  const input = existsSync(join(REPO_VECTORS, 'acvp', set, 'prompt.json.gz')) ? 'prompt' : 'internalProjection';
  if (into === 'expectedResults')
    copyFileSync(join(REPO_VECTORS, 'acvp', set, `${input}.json.gz`), join(dir, `${input}.json.gz`));
  const expected = acvpFile(set, into);
  const altered = mutate(expected);
  writeFileSync(join(dir, `${into}.json`), JSON.stringify(expected));
  return { path: root, altered };
}

/** ML-KEM-768 decapsulation in the older layout: dk at group level, one group per key; plain, array-wrapped prompt. */
export function writeGroupLevelKeySet(): string {
  const root = mkdtempSync(join(tmpdir(), 'svckit-acvp-layout-'));
  const prompt = acvpFile('ML-KEM-encapDecap-FIPS203', 'prompt').testGroups.find(
    (g) => g.parameterSet === 'ML-KEM-768' && g.function === 'decapsulation',
  )!;
  const expected = acvpFile('ML-KEM-encapDecap-FIPS203', 'expectedResults').testGroups.find(
    (g) => g.tgId === prompt.tgId,
  )!;
  const groups = prompt.tests.map((t, i) => ({
    tgId: i + 1,
    testType: 'VAL',
    parameterSet: 'ML-KEM-768',
    function: 'decapsulation',
    dk: t.dk,
    tests: [{ tcId: t.tcId, c: t.c }],
  }));
  const answers = prompt.tests.map((t, i) => ({
    tgId: i + 1,
    tests: [expected.tests.find((e) => e.tcId === t.tcId)],
  }));
  writeSet(
    root,
    'ML-KEM-decap-group-keys',
    { algorithm: 'ML-KEM', mode: 'encapDecap', revision: 'FIPS203' },
    groups,
    answers,
    true,
  );
  return root;
}

/** FIPS203-tr1 decapsulation (seed d, z and expanded dk; expected keys from liboqs) and FIPS204-tr1 sigGen (seed and expanded sk). */
export async function writeTr1Fixtures(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'svckit-acvp-tr1-'));
  const oqs = await createMLKEM768();
  const seedTests: WrittenCase[] = [];
  const expandedTests: WrittenCase[] = [];
  const answers: WrittenCase[][] = [[], []];
  let tcId = 1;
  for (let i = 0; i < 2; i++) {
    const seed = bytes(`tr1 kem seed ${i}`, 64);
    const { publicKey, secretKey } = ml_kem768.keygen(seed);
    const { cipherText } = ml_kem768.encapsulate(publicKey, bytes(`tr1 kem m ${i}`, 32));
    const tampered = new Uint8Array(cipherText);
    tampered[100] = (tampered[100] as number) ^ 1; // exercises implicit rejection
    for (const c of [cipherText, tampered]) {
      const k = hex(oqs.decapsulate(c, secretKey));
      seedTests.push({ tcId, d: hex(seed.subarray(0, 32)), z: hex(seed.subarray(32)), c: hex(c) });
      answers[0]!.push({ tcId: tcId++, k });
      expandedTests.push({ tcId, dk: hex(secretKey), c: hex(c) });
      answers[1]!.push({ tcId: tcId++, k });
    }
  }
  oqs.destroy();
  const kemGroup = (tgId: number, keyFormat: string, tests: WrittenCase[]) => ({
    tgId,
    testType: 'VAL',
    parameterSet: 'ML-KEM-768',
    function: 'decapsulation',
    keyFormat,
    tests,
  });
  writeSet(
    root,
    'ML-KEM-encapDecap-FIPS203-tr1',
    { algorithm: 'ML-KEM', mode: 'encapDecap', revision: 'FIPS203-tr1' },
    [kemGroup(1, 'seed', seedTests), kemGroup(2, 'expanded', expandedTests)],
    [
      { tgId: 1, tests: answers[0] },
      { tgId: 2, tests: answers[1] },
    ],
  );

  // NIST's keyGen vectors pair each ML-DSA-65 seed with its expanded sk; the expected signature is the
  // deterministic signature under that sk, so the seed path must expand exactly as NIST does.
  const keyGenPrompt = acvpFile('ML-DSA-keyGen-FIPS204', 'prompt').testGroups.find(
    (g) => g.parameterSet === 'ML-DSA-65',
  )!;
  const keyGenExpected = acvpFile('ML-DSA-keyGen-FIPS204', 'expectedResults').testGroups.find(
    (g) => g.tgId === keyGenPrompt.tgId,
  )!;
  const dsa: WrittenCase[][] = [[], []];
  const dsaAnswers: WrittenCase[][] = [[], []];
  tcId = 1;
  for (const [i, t] of keyGenPrompt.tests.slice(0, 3).entries()) {
    const sk = keyGenExpected.tests.find((e) => e.tcId === t.tcId)!.sk!;
    const message = bytes(`tr1 dsa message ${i}`, 40 + i);
    const context = bytes(`tr1 dsa context ${i}`, i * 5);
    const signature = hex(ml_dsa65.sign(message, Buffer.from(sk, 'hex'), { context, extraEntropy: false }));
    dsa[0]!.push({ tcId, seed: t.seed!, message: hex(message), context: hex(context) });
    dsaAnswers[0]!.push({ tcId: tcId++, signature });
    dsa[1]!.push({ tcId, sk, message: hex(message), context: hex(context) });
    dsaAnswers[1]!.push({ tcId: tcId++, signature });
  }
  const dsaGroup = (tgId: number, keyFormat: string, tests: WrittenCase[]) => ({
    tgId,
    testType: 'AFT',
    parameterSet: 'ML-DSA-65',
    deterministic: true,
    signatureInterface: 'external',
    preHash: 'pure',
    keyFormat,
    tests,
  });
  writeSet(
    root,
    'ML-DSA-sigGen-FIPS204-tr1',
    { algorithm: 'ML-DSA', mode: 'sigGen', revision: 'FIPS204-tr1' },
    [dsaGroup(1, 'seed', dsa[0]!), dsaGroup(2, 'expanded', dsa[1]!)],
    [
      { tgId: 1, tests: dsaAnswers[0] },
      { tgId: 2, tests: dsaAnswers[1] },
    ],
  );
  return root;
}
