/**
 * The caller's credential on a surface-A request (spec "Authentication", D-015), typed on Fastify's request
 * by declaration merging: the plugin's authentication hook sets it before any handler runs.
 */
import type { FastifyRequest } from 'fastify';
import type { Credential } from '../../ledger/credentials.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; null until the institutional plugin's authentication hook has run. */
    credential: Credential | null;
  }
}

/** The caller's credential, set by the plugin's authentication hook (which refuses a request without one). */
export function credentialOf(request: FastifyRequest): Credential {
  if (!request.credential) throw new Error('a surface-A handler ran before the authentication hook');
  return request.credential;
}
