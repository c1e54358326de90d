/**
 * D-225: the optional binding of an SVC-MLDSA signature to the request body. The specified signed string
 * `<timestamp_ms>:<METHOD>:<request_path>` does not cover the body; a client may send an RFC 9530
 * `Content-Digest` and sign `<timestamp_ms>:<METHOD>:<request_path>\n<Content-Digest value>` instead, marking
 * its header with the `.content-digest` suffix. The server hashes the body as its parser reads it (so the work
 * is bounded by the body limit, and done only for a marked header) and compares it with the header.
 */
import { createHash, type Hash, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The suffix of an SVC-MLDSA header whose signature also covers the Content-Digest header (D-225). */
export const CONTENT_DIGEST_BINDING = '.content-digest';

/** The longest Content-Digest value read: a sha-256 and a sha-512 member fit with room to spare. */
export const MAX_CONTENT_DIGEST_LENGTH = 512;

/** RFC 9530's algorithms that are not deprecated, with node:crypto's name and the digest length. */
const ALGORITHMS = { 'sha-256': ['sha256', 32], 'sha-512': ['sha512', 64] } as const;

/** A Content-Digest algorithm the server checks. */
export type DigestAlgorithm = keyof typeof ALGORITHMS;

/** An RFC 8941 dictionary member `key=:base64:` (RFC 9530 gives each digest as a byte sequence). */
const MEMBER = /^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]*={0,2}):$/;

/**
 * The digests of a Content-Digest value the server can check, or the reason it cannot: malformed, too long, or
 * naming only algorithms other than sha-256 and sha-512 (unknown members are ignored, RFC 9530 section 2).
 */
export function parseContentDigest(value: string): { digests: Map<DigestAlgorithm, Buffer> } | { error: string } {
  if (value.length > MAX_CONTENT_DIGEST_LENGTH)
    return { error: `"Content-Digest" is longer than ${MAX_CONTENT_DIGEST_LENGTH} characters` };
  const digests = new Map<DigestAlgorithm, Buffer>();
  const seen = new Set<string>();
  for (const member of value.split(',')) {
    const match = MEMBER.exec(member.trim());
    if (!match || seen.has(match[1]!))
      return { error: '"Content-Digest" expected RFC 9530 members such as sha-256=:<base64>:, each algorithm once' };
    seen.add(match[1]!);
    const algorithm = match[1] as DigestAlgorithm;
    if (!Object.hasOwn(ALGORITHMS, algorithm)) continue;
    const digest = Buffer.from(match[2]!, 'base64');
    if (digest.length !== ALGORITHMS[algorithm][1])
      return { error: `"Content-Digest" ${algorithm} expected ${ALGORITHMS[algorithm][1]} bytes in base64` };
    digests.set(algorithm, digest);
  }
  if (digests.size === 0) return { error: '"Content-Digest" expected a sha-256 or sha-512 member' };
  return { digests };
}

/** The body's digests, taken as the body parser reads it. */
export class BodyDigest {
  private readonly hashes: Map<DigestAlgorithm, Hash>;
  private finished: Map<DigestAlgorithm, Buffer> | undefined;

  /** Hashes with each of `algorithms`. */
  constructor(algorithms: Iterable<DigestAlgorithm>) {
    this.hashes = new Map([...algorithms].map((a) => [a, createHash(ALGORITHMS[a][0])]));
  }

  /** `payload` passed through unchanged, each chunk hashed on its way to the parser. */
  tap(payload: Readable): Readable {
    const hashes = this.hashes;
    const tapped = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        for (const hash of hashes.values()) hash.update(chunk);
        // Fastify compares this with Content-Length, as it does for the request stream itself.
        (tapped as Transform & { receivedEncodedLength: number }).receivedEncodedLength += chunk.length;
        done(null, chunk);
      },
    });
    (tapped as Transform & { receivedEncodedLength: number }).receivedEncodedLength = 0;
    payload.on('error', (error) => tapped.destroy(error));
    return payload.pipe(tapped);
  }

  /**
   * The digest of what the parser read, which is all the content the handler acts on; undefined for an
   * algorithm not hashed. A request whose body was not parsed has the digest of empty content.
   */
  digest(algorithm: DigestAlgorithm): Buffer | undefined {
    this.finished ??= new Map([...this.hashes].map(([a, hash]) => [a, hash.digest()]));
    return this.finished.get(algorithm);
  }
}

/** The digest of empty content: what a request that carries no body is compared with. */
const emptyDigest = (algorithm: DigestAlgorithm) => createHash(ALGORITHMS[algorithm][0]).digest();

/** True when every checkable member of `digests` equals the body's digest. */
export function bodyMatches(digests: Map<DigestAlgorithm, Buffer>, body: BodyDigest | undefined): boolean {
  let matches = true;
  for (const [algorithm, given] of digests) {
    const actual = body?.digest(algorithm) ?? emptyDigest(algorithm);
    matches = timingSafeEqual(given, actual) && matches;
  }
  return matches;
}

const taps = new WeakMap<FastifyRequest, BodyDigest>();

/**
 * Fastify preParsing hook: for a header marked `.content-digest` with a readable Content-Digest, hashes the body
 * as it is parsed. Anything wrong is left to the authenticator, which refuses it with the reason.
 */
export async function tapBodyForDigest(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: Readable,
): Promise<Readable> {
  const value = request.headers['content-digest'];
  if (!request.headers.authorization?.endsWith(CONTENT_DIGEST_BINDING) || typeof value !== 'string') return payload;
  const parsed = parseContentDigest(value);
  if (!('digests' in parsed)) return payload;
  const body = new BodyDigest(parsed.digests.keys());
  taps.set(request, body);
  return body.tap(payload);
}

/** The body digest {@link tapBodyForDigest} took for `request`, if any. */
export const bodyDigestOf = (request: FastifyRequest): BodyDigest | undefined => taps.get(request);
