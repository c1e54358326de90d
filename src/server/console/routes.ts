/**
 * The administrator console of the base origin (D-271): `{base_url}/console/` serves one page and the script
 * and stylesheet scripts/build-console.ts wrote to dist/console/. spec: the administrator "registers only the
 * public key through an administrator console (API keys, register ML-DSA key)". The page calls `/admin/v1`
 * with the admin token the operator types in; nothing here reads or holds that token. Register with
 * `base.register(consoleRoutes, { prefix: '/console', requestsPerSecond })` on an origin that has
 * installErrorHandling, so unknown paths answer 404 in the origin's `{error, code}` shape.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { repoPath } from '../../paths.ts';
import { hold, type HeldFile } from '../docs/contracts.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { limitRequests } from '../http/rate-limit.ts';
import { consolePage } from './page.ts';

/** Where scripts/build-console.ts writes by default. */
export const CONSOLE_BUILD_DIR = repoPath('dist/console');

/** Options of {@link consoleRoutes}. */
export interface ConsoleOptions {
  /** Per-IP requests per second (D-155, as the reference pages); 0 leaves the console unlimited. */
  requestsPerSecond: number;
  /** The folder scripts/build-console.ts wrote to (default dist/console). */
  buildDir?: string;
}

/**
 * D-272: stricter than the reference pages' policy (D-156): the console renders no third-party component, so
 * styles are 'self' too; scripts and connections are 'self' only, and images are the page's own or data: URLs.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The files of the build, by their name under `/console/assets/`. */
const ASSETS: Record<string, string> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'console.js.LEGAL.txt': 'text/plain; charset=utf-8',
};

/** Fastify plugin serving the console page and its assets. */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  await limitRequests(app, options.requestsPerSecond);
  const buildDir = options.buildDir ?? CONSOLE_BUILD_DIR;
  app.addHook('onSend', async (_request, reply) => {
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      // The page handles the admin token: no cache keeps it (the token itself is never in a response).
      .header('cache-control', 'no-store');
  });
  const missing = ['console.js', 'console.css'].filter((name) => !existsSync(path.join(buildDir, name)));
  if (missing.length > 0) {
    // Said clearly, never a crash: the server runs, and the console says how to build it.
    const reason = `the administrator console build is missing (${missing.join(', ')}); run \`npm run build:console\` (npm start runs it)`;
    const refuse = async () => {
      throw new RestError(ErrorCode.UNAVAILABLE, reason);
    };
    app.get('/', refuse);
    for (const name of Object.keys(ASSETS)) app.get(`/assets/${name}`, refuse);
    return;
  }
  const page = hold(Buffer.from(consolePage(app.prefix), 'utf8'), 'text/html; charset=utf-8');
  app.get('/', async (request, reply) => send(request, reply, page));
  for (const [name, type] of Object.entries(ASSETS)) {
    const file = path.join(buildDir, name);
    if (!existsSync(file)) continue;
    const held = hold(readFileSync(file), type);
    app.get(`/assets/${name}`, async (request, reply) => send(request, reply, held));
  }
}

function send(request: FastifyRequest, reply: FastifyReply, file: HeldFile) {
  reply.header('etag', file.etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag))
    return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}
