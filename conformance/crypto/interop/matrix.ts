// The interoperability matrix: keys, signatures and ciphertexts exchanged between every ordered pair
// of peers (both directions), with negative controls that must fail ("a wrong context; a
// tampered signature; a tampered ciphertext. Implicit rejection must give the same key on both sides").
import { randomBytes } from 'node:crypto';
import { equalBytes } from '@svckit/sdk/crypto/backends';
import { NotApplicable, type InteropPeer, type PeerId } from './peers.ts';

/** Status of one cell. A not-applicable cell is never a pass (spec surface F). */
export type CellStatus = 'passed' | 'failed' | 'notApplicable';

/** One check between a producer and a consumer. */
export interface InteropCell {
  /** Stable check id, e.g. "mldsa.negative.tampered_signature". */
  check: string;
  /** What it does. */
  title: string;
  /** True for a control that must fail. */
  negativeControl: boolean;
  /** Outcome. */
  status: CellStatus;
  /** Why it failed or does not apply. */
  reason?: string;
}

/** One row: an algorithm and an ordered pair of peers. */
export interface InteropRow {
  /** "ML-DSA-65" or "ML-KEM-768". */
  algorithm: 'ML-DSA-65' | 'ML-KEM-768';
  /** Who makes keys and signatures (ML-DSA) or keys (ML-KEM). */
  producer: PeerId;
  /** Who verifies (ML-DSA) or encapsulates and imports the key (ML-KEM). */
  consumer: PeerId;
  /** The checks. */
  cells: InteropCell[];
}

type CellSpec = { check: string; title: string; negativeControl: boolean; run: () => boolean };

const CONTEXT = new TextEncoder().encode('svckit interop context');
const OTHER_CONTEXT = new TextEncoder().encode('another context');
const EMPTY = new Uint8Array(0);

/** Runs every ML-DSA-65 check for signer `p` and verifier `c`. */
export function mlDsaRow(p: InteropPeer, c: InteropPeer): InteropRow {
  const message = messageBytes('ML-DSA-65', p, c);
  const { publicKey, secret } = p.dsaKeygen();
  const specs: CellSpec[] = [
    {
      check: 'mldsa.verify',
      title: `${c.name} verifies ${p.name}'s signature under ${p.name}'s public key (empty context)`,
      negativeControl: false,
      run: () => c.dsaVerify(publicKey, message, p.dsaSign(secret, message, EMPTY), EMPTY),
    },
    {
      check: 'mldsa.verify_context',
      title: `${c.name} verifies ${p.name}'s signature made with a non-empty context`,
      negativeControl: false,
      run: () => c.dsaVerify(publicKey, message, p.dsaSign(secret, message, CONTEXT), CONTEXT),
    },
    {
      check: 'mldsa.secret_key_transfer',
      title: `${c.name} signs with ${p.name}'s secret key; ${p.name} verifies`,
      negativeControl: false,
      run: () => p.dsaVerify(publicKey, message, c.dsaSign(secret, message, EMPTY), EMPTY),
    },
    {
      check: 'mldsa.negative.wrong_context',
      title: `${c.name} must reject ${p.name}'s signature under another context`,
      negativeControl: true,
      run: () => {
        // The signer uses a context when it can; the verifier then uses the empty one, else another.
        const signed = p.supportsContext ? CONTEXT : EMPTY;
        const checked = p.supportsContext ? EMPTY : OTHER_CONTEXT;
        return !c.dsaVerify(publicKey, message, p.dsaSign(secret, message, signed), checked);
      },
    },
    {
      check: 'mldsa.negative.tampered_signature',
      title: `${c.name} must reject ${p.name}'s signature with one bit flipped`,
      negativeControl: true,
      run: () => !c.dsaVerify(publicKey, message, flipBit(p.dsaSign(secret, message, EMPTY)), EMPTY),
    },
  ];
  return { algorithm: 'ML-DSA-65', producer: p.id, consumer: c.id, cells: specs.map(runCell) };
}

/** Runs every ML-KEM-768 check for key holder `p` and encapsulator `c`. */
export function mlKemRow(p: InteropPeer, c: InteropPeer): InteropRow {
  const { publicKey, secret } = p.kemKeygen();
  const specs: CellSpec[] = [
    {
      check: 'mlkem.encapsulate_decapsulate',
      title: `${c.name} encapsulates to ${p.name}'s key; ${p.name} decapsulates the same shared secret`,
      negativeControl: false,
      run: () => {
        const { ciphertext, sharedSecret } = c.kemEncapsulate(publicKey);
        return equalBytes(p.kemDecapsulate(secret, ciphertext), sharedSecret);
      },
    },
    {
      check: 'mlkem.secret_key_transfer',
      title: `${c.name} decapsulates with ${p.name}'s decapsulation key`,
      negativeControl: false,
      run: () => {
        const { ciphertext, sharedSecret } = p.kemEncapsulate(publicKey);
        return equalBytes(c.kemDecapsulate(secret, ciphertext), sharedSecret);
      },
    },
    {
      check: 'mlkem.negative.tampered_ciphertext',
      title: `${p.name} must not recover ${c.name}'s shared secret from a ciphertext with one bit flipped`,
      negativeControl: true,
      run: () => {
        const { ciphertext, sharedSecret } = c.kemEncapsulate(publicKey);
        return !equalBytes(p.kemDecapsulate(secret, flipBit(ciphertext)), sharedSecret);
      },
    },
    {
      check: 'mlkem.negative.implicit_rejection_agrees',
      title: `${p.name} and ${c.name} give the same implicit-rejection key for a tampered ciphertext (FIPS 203 Algorithm 18, K-bar)`,
      negativeControl: true,
      run: () => {
        const { ciphertext, sharedSecret } = c.kemEncapsulate(publicKey);
        const tampered = flipBit(ciphertext);
        const holder = p.kemDecapsulate(secret, tampered);
        const other = c.kemDecapsulate(secret, tampered);
        return equalBytes(holder, other) && !equalBytes(holder, sharedSecret);
      },
    },
  ];
  return { algorithm: 'ML-KEM-768', producer: p.id, consumer: c.id, cells: specs.map(runCell) };
}

function runCell(spec: CellSpec): InteropCell {
  const base = { check: spec.check, title: spec.title, negativeControl: spec.negativeControl };
  try {
    return spec.run()
      ? { ...base, status: 'passed' }
      : {
          ...base,
          status: 'failed',
          reason: spec.negativeControl ? 'the control did not fail' : 'the exchange did not agree',
        };
  } catch (error) {
    if (error instanceof NotApplicable) return { ...base, status: 'notApplicable', reason: error.message };
    return { ...base, status: 'failed', reason: `threw ${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** A copy with one bit flipped in the middle (FIPS 204 signatures and FIPS 203 ciphertexts alike). */
export function flipBit(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes);
  const index = Math.floor(copy.length / 2);
  copy[index] = (copy[index] as number) ^ 0x01;
  return copy;
}

function messageBytes(algorithm: string, p: InteropPeer, c: InteropPeer): Uint8Array {
  return new Uint8Array(
    Buffer.concat([Buffer.from(`svckit interop ${algorithm} ${p.id} -> ${c.id} `), randomBytes(16)]),
  );
}
