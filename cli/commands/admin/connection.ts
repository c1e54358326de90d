/**
 * How `svckit admin` reaches a running server: its admin API over HTTPS (PGlite is single-process, so the CLI
 * never opens the server's files, DESIGN.md), with the generated admin SDK. `--base`, `--token` and `--ca-cert`
 * win; without them the CLI uses SVC_ADMIN_TOKEN, the data directory's development CA
 * (`<SVC_DATA_DIR>/tls/ca.pem`) and the configured base origin (`https://<SVC_HOST>:<SVC_BASE_PORT>`, D-158): the
 * server records its ports nowhere but the ready line, so the settings it was started with are the source.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { InvalidArgumentError, type Command } from 'commander';
import { createClient, type Client } from '@svckit/sdk/admin/client';
import { readSetting } from '../../../src/config.ts';
import { readSecret, secretOption, type SecretOption } from '../secrets.ts';

/** The connection and output options every admin sub-command takes. */
export type AdminOptions = {
  base?: string;
  token?: string;
  tokenFile?: string;
  caCert?: string;
  json?: boolean;
  field?: string;
};

/** D-222: the administrator token, from --token, --token-file or SVC_ADMIN_TOKEN (D-158). */
export const ADMIN_TOKEN: SecretOption = { flag: 'token', env: 'SVC_ADMIN_TOKEN', what: 'the administrator token' };

/** A failure to report: its text goes to stderr and the command exits 1. */
export class AdminCliError extends Error {
  override name = 'AdminCliError';
}

/** Adds the connection options, `--json` and `--field` to `command`. */
export function connectionOptions(command: Command): Command {
  command.option(
    '--base <url>',
    'HTTPS root of the server (default https://<SVC_HOST>:<SVC_BASE_PORT>, i.e. https://127.0.0.1:8443)',
  );
  return secretOption(command, ADMIN_TOKEN, 'token')
    .option('--ca-cert <file>', 'PEM file of the CA to trust (default <SVC_DATA_DIR>/tls/ca.pem)')
    .option('--json', 'print the API answer as JSON')
    .option(
      '--field <name>',
      'print only this field of the answer (dot path, e.g. token or accounts.0.id), for scripts',
    );
}

/** The base origin from the settings `svckit serve` reads (src/config.ts): SVC_HOST and SVC_BASE_PORT. */
export function defaultBase(env: NodeJS.ProcessEnv = process.env): string {
  const configured = readSetting('SVC_HOST', env);
  // A server listening on every interface is reached on loopback, which the development certificate names.
  const host = configured === '0.0.0.0' || configured === '::' ? '127.0.0.1' : configured;
  const port = readSetting('SVC_BASE_PORT', env);
  if (port === 0)
    throw new AdminCliError('SVC_BASE_PORT is 0 (an ephemeral port): give --base with the URL the ready line printed');
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The administrator token the command sends: --token, --token-file or SVC_ADMIN_TOKEN (D-158, D-222). */
export function adminToken(options: AdminOptions): string {
  let token: string | undefined;
  try {
    token = readSecret(options, ADMIN_TOKEN);
  } catch (error) {
    throw new AdminCliError((error as Error).message);
  }
  if (!token) throw new AdminCliError('an administrator token is needed: --token-file, SVC_ADMIN_TOKEN or --token');
  return token;
}

/** The generated SDK's client for `{base}/admin/v1`, trusting the given or the data directory's CA. */
export function adminClient(options: AdminOptions): Client {
  const token = adminToken(options);
  const caFile = options.caCert ?? path.join(readSetting('SVC_DATA_DIR'), 'tls', 'ca.pem');
  if (options.caCert && !existsSync(caFile)) throw new AdminCliError(`--ca-cert ${caFile}: no such file`);
  // The server's development CA joins Node's default trust store for this process (fetch honours it).
  if (existsSync(caFile))
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(caFile, 'utf8')]);
  const given = options.base ?? defaultBase();
  let base: URL;
  try {
    base = new URL(given.endsWith('/') ? given : `${given}/`);
  } catch {
    throw new AdminCliError(`--base expected an https URL, got "${given}"`);
  }
  if (base.protocol !== 'https:') throw new AdminCliError(`--base expected an https URL, got "${given}"`);
  return createClient({ baseUrl: new URL('admin/v1', base).href, headers: { Authorization: `Bearer ${token}` } });
}

/** The data of an SDK answer, or an AdminCliError carrying the server's `{error}` and the HTTP status. */
export function answer<T>(result: { data?: T; error?: unknown; response?: Response }): T {
  if (result.error === undefined && result.response?.ok) return result.data as T;
  const status = result.response ? `HTTP ${result.response.status}` : 'no answer';
  const body = result.error as { error?: string; code?: string } | undefined;
  const text =
    typeof body?.error === 'string'
      ? `${body.error}${body.code ? ` (${body.code})` : ''}`
      : JSON.stringify(result.error);
  throw new AdminCliError(`${status}: ${text}`);
}

/** Prints an answer: one field (`--field`), JSON (`--json`) or the human table `human` makes. */
export function print<T>(options: AdminOptions, data: T, human: (data: T) => string): void {
  if (options.field !== undefined) {
    let value: unknown = data;
    for (const part of options.field.split('.')) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part))
        throw new AdminCliError(`--field ${options.field}: the answer has no such field`);
      value = (value as Record<string, unknown>)[part];
    }
    console.log(typeof value === 'string' ? value : JSON.stringify(value));
    return;
  }
  console.log(options.json ? JSON.stringify(data, null, 2) : human(data));
}

/** Runs a sub-command's action: a failure is printed as `svckit admin: <text>` on stderr and exits 1. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      // A network failure (server away, TLS refused) is reported as such, with its cause (e.g. ECONNREFUSED).
      const text =
        error instanceof AdminCliError
          ? error.message
          : `${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause: Error }).cause.message}` : ''}`;
      console.error(`svckit admin: ${text}`);
      process.exit(1);
    }
  };
}

/** A comma-separated option value as a list (empty items dropped). */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** A whole-number option value; anything else is a usage error commander reports before any request. */
export function integer(value: string): number {
  if (!/^-?\d{1,15}$/.test(value)) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return Number(value);
}

/** Rows as a text table: a header, then one line per row, columns padded to the widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}
