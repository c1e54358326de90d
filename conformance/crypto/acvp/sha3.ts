// ACVP SHA3-256 (FIPS 202): AFT (bit-oriented lengths), MCT and LDT. node:crypto hashes whole bytes;
// @noble/hashes exposes its Keccak sponge with a settable padding suffix, which takes a message's
// trailing bits (see bitPaddedSuffix), so the noble implementation runs the bit-oriented cases too.
import { createHash } from 'node:crypto';
import { Keccak } from '@noble/hashes/sha3.js';
import { NotOffered, type ImplementationId } from '../implementations.ts';
import { hexBytes, upperHex, type JsonObject } from '../vectors.ts';
import {
  compareResponse,
  field,
  hexField,
  type AcvpCase,
  type AcvpRunOptions,
  type AcvpSetHandler,
} from './handler.ts';

const RATE_BYTES = 136; // SHA3-256: r = 1088 bits
const DIGEST_BYTES = 32;

/** SHA3-256 AFT, MCT (standard) and LDT. */
export const sha3Handler: AcvpSetHandler = {
  label: 'SHA3-256',
  matches: (h) => h.algorithm === 'SHA3-256',
  describeGroup: (g) =>
    `SHA3-256 ${String(g.testType)}${g.testType === 'MCT' && g.mctVersion ? ` ${String(g.mctVersion)}` : ''}`,
  run(c, impl, options) {
    switch (c.group.testType) {
      case 'AFT':
        return compareResponse(
          c,
          { tcId: c.test.tcId, md: upperHex(hashBits(impl, hexField(c, 'msg'), Number(field(c, 'len')))) },
          ['md'],
        );
      case 'MCT':
        return monteCarlo(c, impl);
      case 'LDT':
        return largeData(c, impl, options);
      default:
        throw new Error(`unknown SHA3 testType ${JSON.stringify(c.group.testType)}`);
    }
  },
};

/** SHA3-256 of the first `bits` bits of `msg` (ACVP bit strings fill each byte from its high bit). */
export function hashBits(impl: ImplementationId, msg: Uint8Array, bits: number): Uint8Array {
  if (!Number.isInteger(bits) || bits < 0 || bits > msg.length * 8)
    throw new Error(`len ${bits} does not fit the ${msg.length}-byte msg`);
  const whole = Math.floor(bits / 8);
  const rest = bits % 8;
  if (rest === 0) return hashBytes(impl, msg.subarray(0, whole));
  if (impl === 'openssl')
    throw new NotOffered('bit-oriented messages (length not a multiple of 8): node:crypto hashes whole bytes');
  // The trailing bits are the high `rest` bits of the last byte; FIPS 202 reads bit strings from
  // the low bit of each byte, so they become the low bits of the padded last byte, followed by the
  // SHA-3 domain bits 0,1 and the first pad10*1 bit (0b110 = 6).
  const combined = ((msg[whole] as number) >> (8 - rest)) | (6 << rest);
  const sponge =
    combined > 0xff
      ? new Keccak(RATE_BYTES, combined >> 8, DIGEST_BYTES)
      : new Keccak(RATE_BYTES, combined, DIGEST_BYTES);
  sponge.update(msg.subarray(0, whole));
  if (combined > 0xff) sponge.update(Uint8Array.of(combined & 0xff));
  return sponge.digest();
}

function hashBytes(impl: ImplementationId, data: Uint8Array): Uint8Array {
  if (impl === 'openssl') return new Uint8Array(createHash('sha3-256').update(data).digest());
  const sponge = new Keccak(RATE_BYTES, 0x06, DIGEST_BYTES);
  sponge.update(data);
  return sponge.digest();
}

// ACVP SHA-3 standard Monte Carlo test: MD[0] = seed; 100 times: MD[i] = SHA3(MD[i-1]) for i = 1..1000,
// then output MD[1000] and start again from it.
function monteCarlo(c: AcvpCase, impl: ImplementationId) {
  if (c.group.mctVersion !== undefined && c.group.mctVersion !== 'standard') {
    throw new NotOffered(`Monte Carlo version "${String(c.group.mctVersion)}" is not implemented by this runner`);
  }
  const len = Number(field(c, 'len'));
  if (len % 8 !== 0) throw new NotOffered('a bit-oriented Monte Carlo seed is not implemented by this runner');
  let md = hexField(c, 'msg').subarray(0, len / 8);
  const resultsArray: JsonObject[] = [];
  for (let j = 0; j < 100; j++) {
    for (let i = 0; i < 1000; i++) md = hashBytes(impl, md);
    resultsArray.push({ md: upperHex(md) });
  }
  // internalProjection's entries also carry outLen; the response, like expectedResults, carries md.
  const expectedArray = c.expected?.resultsArray;
  const expected = Array.isArray(expectedArray)
    ? { ...c.expected, resultsArray: expectedArray.map((entry: JsonObject) => ({ md: entry.md })) }
    : c.expected;
  return compareResponse({ ...c, expected }, { tcId: c.test.tcId, resultsArray }, ['resultsArray']);
}

// ACVP LDT: the content repeated until fullLength bits (expansionTechnique "repeating").
function largeData(c: AcvpCase, impl: ImplementationId, options: AcvpRunOptions) {
  const large = c.test.largeMsg as JsonObject | undefined;
  if (!large) throw new Error(`test case ${String(c.test.tcId)} has no largeMsg`);
  const fullBits = Number(large.fullLength);
  const gib = fullBits / 8 / 2 ** 30;
  if (!options.largeData) throw new NotOffered(`large data tests (1 to 8 GiB each) are run only with --large-data`);
  if (large.expansionTechnique !== 'repeating')
    throw new NotOffered(`LDT expansion "${String(large.expansionTechnique)}" is not implemented by this runner`);
  const content = hexBytes(large.content, 'largeMsg.content').subarray(0, Number(large.contentLength) / 8);
  if (fullBits % 8 !== 0 || content.length === 0 || (fullBits / 8) % content.length !== 0) {
    throw new NotOffered(
      `an LDT of ${gib} GiB that is not whole repetitions of whole bytes is not implemented by this runner`,
    );
  }
  const chunk = Buffer.alloc(content.length * Math.max(1, Math.floor((8 << 20) / content.length)));
  for (let i = 0; i < chunk.length; i += content.length) chunk.set(content, i);
  const sponge = impl === 'openssl' ? createHash('sha3-256') : new Keccak(RATE_BYTES, 0x06, DIGEST_BYTES);
  let remaining = fullBits / 8;
  while (remaining > 0) {
    const take = Math.min(remaining, chunk.length);
    sponge.update(chunk.subarray(0, take));
    remaining -= take;
  }
  const md = sponge.digest();
  return compareResponse(c, { tcId: c.test.tcId, md: upperHex(md instanceof Uint8Array ? md : new Uint8Array(md)) }, [
    'md',
  ]);
}
