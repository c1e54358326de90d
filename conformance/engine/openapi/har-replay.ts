/**
 * Replays one entry of a run's HAR file (`svckit conformance --har`, D-232): its request is sent again to the
 * deployment named by `--base`. A HAR file is input from elsewhere like a case file, so (D-223) its request must
 * be an operation of a contract — the method and route template of an OpenAPI operation under its surface's base
 * path, or a POST to `{base_url}/rpc` — or nothing is sent. Its credential was redacted when it was written: the
 * operator gives one. A body whose secret fields were redacted is refused: it cannot be the request that was sent.
 */
import { readFileSync } from 'node:fs';
import { SPECS_DIR } from '../../../src/paths.ts';
import type { Har, HarEntry } from '../../report/stream.ts';
import type { WireRequest } from '../core/client.ts';
import { contractOf, ENGINE_SURFACES, type EngineSurface } from './contract.ts';
import { surfaceBase } from './replay.ts';

/** Headers not carried over: the connection's own, and the credential (the operator gives it). */
const DROPPED = new Set(['host', 'content-length', 'connection', 'authorization', 'transfer-encoding']);

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Entry `n` (1-based) of the HAR file at `path`; throws naming what is wrong. */
export function readHarEntry(path: string, n: number): HarEntry {
  const har = JSON.parse(readFileSync(path, 'utf8')) as Partial<Har>;
  const entries = har.log?.entries;
  if (har.log?.version !== '1.2' || !Array.isArray(entries)) throw new Error(`${path} is not a HAR 1.2 file`);
  const entry = entries[n - 1];
  if (!Number.isInteger(n) || n < 1 || !entry)
    throw new Error(`${path} has ${entries.length} entries; "--entry" expected 1 to ${entries.length}, got ${n}`);
  return entry;
}

/** Which operation the request is, as `surface METHOD /route`, or undefined when it is none. */
function operationOfRequest(method: string, url: URL, base: URL, specsDir: string): string | undefined {
  if (method === 'POST' && url.pathname === new URL('rpc', base).pathname) return 'chain POST /rpc';
  for (const surface of Object.keys(ENGINE_SURFACES) as EngineSurface[]) {
    const root = surfaceBase(surface, base, specsDir);
    const prefix = literal(root.pathname.replace(/\/$/, ''));
    for (const op of contractOf(specsDir, surface).operations) {
      const route = op.route
        .split(/\{[^}]+\}/)
        .map(literal)
        .join('[^/]+');
      if (op.method === method && new RegExp(`^${prefix}${route}$`).test(url.pathname)) return `${surface} ${op.id}`;
    }
  }
  return undefined;
}

/** The request of `entry` against `base`, with `authorization` when given; throws when it is no contract's operation. */
export function prepareHarReplay(
  entry: HarEntry,
  options: { base: URL; authorization?: string; specsDir?: string },
): { request: WireRequest; operation: string; recordedStatus: number } {
  const recorded = new URL(entry.request.url);
  const url = new URL(`${recorded.pathname}${recorded.search}`, options.base);
  const method = entry.request.method.toUpperCase();
  const operation = operationOfRequest(method, url, options.base, options.specsDir ?? SPECS_DIR);
  if (!operation)
    throw new Error(`refusing to send the entry: ${method} ${url.pathname} is no operation of the contracts`);
  const body = entry.request.postData?.text;
  if (body?.includes('"[redacted]"'))
    throw new Error('refusing to send the entry: its body had secret fields, redacted when the HAR file was written');
  const headers: Record<string, string> = {};
  for (const { name, value } of entry.request.headers)
    if (!DROPPED.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  if (options.authorization) headers.authorization = options.authorization;
  return {
    request: { method, url: url.href, headers, ...(body !== undefined ? { body } : {}) },
    operation,
    recordedStatus: entry.response.status,
  };
}
