/**
 * The body-depth guard at the parsing edge of every origin (house rule 4: guards at the edges; spec: "Never
 * answer a 500 for bad input"). A JSON body nested deeper than D-144's limit is refused before it is parsed,
 * so no walk over request-controlled JSON (the private-material check, schema validation, idempotency
 * digests, the relay to the chain node) ever sees it. The scan is one loop over the text: no recursion.
 */
import type { FastifyInstance } from 'fastify';
import { ErrorCode, RestError } from './errors.ts';

/** D-144: the deepest nesting of arrays and objects any JSON body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of the JSON text `text`, counting `[` and `{` outside strings, or the first depth
 * over `limit` (the scan stops there). Malformed text is left to the JSON parser, which reports it.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character (\" included)
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/** The refusal text of a body nested deeper than D-144 allows (shared by the REST and JSON-RPC shapes). */
export const tooDeepMessage = (limit = MAX_JSON_DEPTH) =>
  `the JSON body is nested deeper than ${limit} levels of arrays and objects`;

/**
 * Replaces `app`'s application/json parser with Fastify's own (same prototype-poisoning rules, same body
 * limit) behind the depth check: a body over D-144's depth is a 400 `{error, code: BODY_TOO_DEEP}`.
 */
export function installBodyDepthGuard(app: FastifyInstance, limit = MAX_JSON_DEPTH): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepth(text, limit) > limit)
      return done(new RestError(ErrorCode.BODY_TOO_DEEP, tooDeepMessage(limit)), undefined);
    return parseJson(request, text, done);
  });
}
