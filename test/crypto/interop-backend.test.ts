// Fault injection: the interoperability matrix's noble peer is the façade's own noble backend, so a backend
// whose ML-DSA-65 verify accepts everything fails the matrix (an interop peer calling @noble/post-quantum
// directly would pass it). The backend module is replaced for this file only.
import { describe, expect, it, vi } from 'vitest';
import { mlDsaRow } from '../../conformance/crypto/interop/matrix.ts';
import { noblePeer, opensslPeer } from '../../conformance/crypto/interop/peers.ts';

vi.mock('../../src/crypto/backends/noble-ml-dsa.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/crypto/backends/noble-ml-dsa.ts')>()),
  nobleMlDsa65Verify: () => true,
}));

describe('the interop matrix on the façade backends', () => {
  it('fails a noble backend whose verify accepts every signature', () => {
    const row = mlDsaRow(opensslPeer(), noblePeer());
    expect(row.cells.filter((c) => c.status === 'failed').map((c) => c.check)).toEqual([
      'mldsa.negative.wrong_context',
      'mldsa.negative.tampered_signature',
    ]);
  });
});
