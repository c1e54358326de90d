/**
 * How `svckit admin` reaches a running server: its admin API over HTTPS (PGlite is single-process, so the CLI
 * never opens the server's files, DESIGN.md), with the generated admin SDK. The options and defaults are
 * those of `svckit webhooks`: `--base`, `--token` or SVC_ADMIN_TOKEN, `--ca-cert` or the data directory's
 * development CA.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Command } from 'commander';
import { createClient, type Client } from '../../../../generated/admin/client';

/** The connection options every admin sub-command takes. */
export type AdminOptions = { base: string; token?: string; caCert?: string; json?: boolean };

/** A failure to report: its text goes to stderr and the command exits 1. */
export class AdminCliError extends Error {
  override name = 'AdminCliError';
}

/** Adds the connection options (and `--json`) to `command`. */
export function connectionOptions(command: Command): Command {
  return command
    .option('--base <url>', 'HTTPS root of the server ({base_url})', 'https://localhost:8443')
    .option('--token <token>', 'administrator token (default SVC_ADMIN_TOKEN)')
    .option('--ca-cert <file>', 'PEM file of the CA to trust (default <SVC_DATA_DIR>/tls/ca.pem)')
    .option('--json', 'print the API answer as JSON');
}

/** The generated SDK's client for `{base}/admin/v1`, trusting the given or the data directory's CA. */
export function adminClient(options: AdminOptions): Client {
  const token = options.token ?? process.env.SVC_ADMIN_TOKEN;
  if (!token) throw new AdminCliError('an administrator token is needed: --token or SVC_ADMIN_TOKEN');
  const caFile = options.caCert ?? path.join(process.env.SVC_DATA_DIR || '.data', 'tls', 'ca.pem');
  if (options.caCert && !existsSync(caFile)) throw new AdminCliError(`--ca-cert ${caFile}: no such file`);
  // The server's development CA joins Node's default trust store for this process (fetch honours it).
  if (existsSync(caFile)) tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(caFile, 'utf8')]);
  const base = options.base.endsWith('/') ? options.base : `${options.base}/`;
  return createClient({ baseUrl: new URL('admin/v1', base).href, headers: { Authorization: `Bearer ${token}` } });
}

/** The data of an SDK answer, or an AdminCliError carrying the server's `{error}` and the HTTP status. */
export function answer<T>(result: { data?: T; error?: unknown; response?: Response }): T {
  if (result.error === undefined && result.response?.ok) return result.data as T;
  const status = result.response ? `HTTP ${result.response.status}` : 'no answer';
  const body = result.error as { error?: string; code?: string } | undefined;
  const text = typeof body?.error === 'string' ? `${body.error}${body.code ? ` (${body.code})` : ''}` : JSON.stringify(result.error);
  throw new AdminCliError(`${status}: ${text}`);
}

/** Runs a sub-command's action: a failure is printed as `svckit admin: <text>` on stderr and exits 1. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      // A network failure (server away, TLS refused) is reported as such; nothing else is expected here.
      const text = error instanceof AdminCliError ? error.message : `${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause: Error }).cause.message}` : ''}`;
      console.error(`svckit admin: ${text}`);
      process.exit(1);
    }
  };
}
