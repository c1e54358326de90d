/**
 * The contracts the reference pages at `{base_url}/docs` render (D-154): the four OpenAPI contracts, the
 * AsyncAPI webhook events and the OpenRPC chain methods, read once from specs/ when the plugin starts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SPECS_DIR } from '../../paths.ts';

/** The renderer a page uses. */
export type Renderer = 'redoc' | 'asyncapi' | 'openrpc';

/** One contract with its page slug, file in specs/ and renderer. */
export interface Contract {
  slug: string;
  file: string;
  renderer: Renderer;
  /** The surface it describes, shown on the index page. */
  surface: string;
}

/** Every contract in specs/, in the order the index lists them. */
export const CONTRACTS: readonly Contract[] = [
  {
    slug: 'institutional',
    file: 'institutional.openapi.yaml',
    renderer: 'redoc',
    surface: 'Institutional REST API (OpenAPI)',
  },
  { slug: 'explorer', file: 'explorer.openapi.yaml', renderer: 'redoc', surface: 'Explorer REST API (OpenAPI)' },
  { slug: 'wallet', file: 'wallet.openapi.yaml', renderer: 'redoc', surface: 'Wallet session API (OpenAPI)' },
  { slug: 'admin', file: 'admin.openapi.yaml', renderer: 'redoc', surface: 'Administrator console API (OpenAPI)' },
  { slug: 'webhooks', file: 'webhooks.asyncapi.yaml', renderer: 'asyncapi', surface: 'Webhook events (AsyncAPI)' },
  { slug: 'chain', file: 'chain.openrpc.json', renderer: 'openrpc', surface: 'Chain JSON-RPC methods (OpenRPC)' },
];

/** The repository's specs/ folder. */

/** A file held in memory with the headers that describe it. */
export interface HeldFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** Holds `body` with its strong ETag (a SHA-256 prefix of the bytes). */
export function hold(body: Buffer, contentType: string): HeldFile {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Reads each contract from `specsDir` once, with its title for the index page. */
export function readContracts(specsDir = SPECS_DIR): Array<Contract & { title: string; spec: HeldFile }> {
  return CONTRACTS.map((contract) => {
    const body = readFileSync(path.join(specsDir, contract.file));
    // RFC 9512 registers application/yaml; the OpenRPC document is JSON.
    const type = contract.file.endsWith('.json')
      ? 'application/json; charset=utf-8'
      : 'application/yaml; charset=utf-8';
    return { ...contract, title: titleOf(body.toString('utf8'), contract.file), spec: hold(body, type) };
  });
}

// The index shows each contract's info.title; a JSON document or the first `title:` under `info:` in YAML.
function titleOf(text: string, file: string): string {
  if (file.endsWith('.json')) return String((JSON.parse(text) as { info?: { title?: string } }).info?.title ?? file);
  const match = /^info:\s*\n(?:[ \t]+.*\n)*?[ \t]+title:\s*(.+)$/m.exec(text);
  return match?.[1]?.trim().replace(/^['"]|['"]$/g, '') ?? file;
}
