/**
 * The site origin's evidence routes (surface F): spec "GET {site_url}/.well-known/pqc-evidence.json
 * returns the Evidence document". Also serves the SBOM and CBOM written beside it. Register with
 * `site.register(evidenceSiteRoutes, { evidenceDir })` on an origin that has installErrorHandling.
 */
import { resolve } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_EVIDENCE_DIR } from '../../evidence/defaults.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { EvidenceFiles, type ServedFile, type Unavailable } from './store.ts';

/** Options of the plugin. */
export interface EvidenceSiteOptions {
  /** The folder `svckit evidence build --out` wrote (default `.data/evidence` from the working directory). */
  evidenceDir?: string;
  /** Cache-Control max-age in seconds (default 300). */
  maxAgeSeconds?: number;
}

/** How long a client waits before asking again for a document not built yet (D-153). */
const RETRY_AFTER_SECONDS = 10;

/** The path of the evidence document. */
export const EVIDENCE_PATH = '/.well-known/pqc-evidence.json';

/** Fastify plugin serving the evidence document with Cache-Control, ETag and 304 on If-None-Match. */
export async function evidenceSiteRoutes(app: FastifyInstance, options: EvidenceSiteOptions): Promise<void> {
  const files = new EvidenceFiles(resolve(options.evidenceDir ?? DEFAULT_EVIDENCE_DIR));
  const maxAge = options.maxAgeSeconds ?? 300;

  app.get(EVIDENCE_PATH, async (request, reply) => {
    const file = files.document();
    // D-153: until the document is built (svckit serve builds it in the background at start), 503 with Retry-After.
    if (!('body' in file)) {
      const code = file.missing ? ErrorCode.EVIDENCE_NOT_BUILT : ErrorCode.EVIDENCE_INVALID;
      throw new RestError(code, file.reason, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } });
    }
    return send(request, reply, file, 'application/json; charset=utf-8', maxAge);
  });

  for (const name of ['sbom.cdx.json', 'cbom.cdx.json'] as const) {
    app.get(`/pqc-evidence/${name}`, async (request, reply) => {
      const file = files.cycloneDx(name);
      if (!('body' in file))
        throw (file as Unavailable).missing
          ? new RestError(ErrorCode.NOT_FOUND, file.reason)
          : new RestError(ErrorCode.EVIDENCE_INVALID, file.reason);
      return send(request, reply, file, 'application/vnd.cyclonedx+json; charset=utf-8', maxAge);
    });
  }
}

// RFC 9110 §13.1.2: If-None-Match holds a list of entity tags (or *); weak comparison applies.
function send(request: FastifyRequest, reply: FastifyReply, file: ServedFile, contentType: string, maxAge: number) {
  reply
    .header('cache-control', `public, max-age=${maxAge}`)
    .header('etag', file.etag)
    .header('last-modified', file.lastModified.toUTCString());
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch &&
    (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag))
  ) {
    return reply.code(304).send();
  }
  return reply.type(contentType).send(file.body);
}
