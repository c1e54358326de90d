// The interoperability matrix: three independent implementations, every ordered pair, zero failures,
// and negative controls that really fail when an implementation misbehaves.
import { beforeAll, describe, expect, it } from 'vitest';
import { flipBit, mlDsaRow, mlKemRow } from '../../conformance/crypto/interop/matrix.ts';
import { noblePeer, opensslPeer, type InteropPeer } from '../../conformance/crypto/interop/peers.ts';
import { runInterop, summariseInterop, type InteropResultsFile } from '../../conformance/crypto/interop/run.ts';

describe('interoperability matrix', () => {
  let results: InteropResultsFile;
  beforeAll(async () => {
    results = await runInterop('npx svckit interop');
  });

  it('runs OpenSSL, noble and liboqs in every ordered pair with zero failures', () => {
    expect(results.peers.map((p) => p.id)).toEqual(['openssl', 'noble', 'liboqs']);
    expect(results.peers.every((p) => /^\d+\.\d+\.\d+/.test(p.version))).toBe(true);
    const pairs = new Set(results.rows.map((r) => `${r.algorithm} ${r.producer}->${r.consumer}`));
    expect(pairs.size).toBe(12); // 2 algorithms × 6 ordered pairs
    expect(results.summary).toEqual({
      checks: 47,
      passed: 47,
      failed: 0,
      notApplicable: 7,
      rows: 12,
      bothDirections: true,
      negativeControls: 23,
    });
  });

  it('every row runs its negative controls, and not-applicable cells give a reason', () => {
    for (const row of results.rows) {
      const controls = row.cells.filter((c) => c.negativeControl && c.status !== 'notApplicable');
      expect(controls.length, `${row.algorithm} ${row.producer}->${row.consumer}`).toBeGreaterThan(0);
    }
    const checks = new Set(
      results.rows.flatMap((r) => r.cells.filter((c) => c.status === 'passed').map((c) => c.check)),
    );
    for (const control of [
      'mldsa.negative.wrong_context',
      'mldsa.negative.tampered_signature',
      'mlkem.negative.tampered_ciphertext',
      'mlkem.negative.implicit_rejection_agrees',
    ]) {
      expect(checks.has(control), control).toBe(true);
    }
    for (const cell of results.rows.flatMap((r) => r.cells).filter((c) => c.status === 'notApplicable'))
      expect(cell.reason).toMatch(/liboqs/);
  });

  it('the negative controls fail against a verifier that accepts anything and a KEM that does not reject', () => {
    const noble = noblePeer();
    // Accepts every signature; decapsulates the ciphertext with its middle bit flipped back, so a
    // tampered ciphertext yields the sender's key and a genuine one does not.
    const lax: InteropPeer = {
      ...noble,
      dsaVerify: () => true,
      kemDecapsulate: (secret, c) => noble.kemDecapsulate(secret, flipBit(c)),
    };
    const dsa = mlDsaRow(opensslPeer(), lax);
    expect(dsa.cells.filter((c) => c.status === 'failed').map((c) => c.check)).toEqual([
      'mldsa.negative.wrong_context',
      'mldsa.negative.tampered_signature',
    ]);
    const kem = mlKemRow(lax, opensslPeer());
    expect(kem.cells.filter((c) => c.status === 'failed').map((c) => c.check)).toEqual([
      'mlkem.encapsulate_decapsulate',
      'mlkem.negative.tampered_ciphertext',
      'mlkem.negative.implicit_rejection_agrees',
    ]);
    expect(summariseInterop([dsa, kem]).failed).toBe(5);
  });
});
