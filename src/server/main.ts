/**
 * `svckit serve`: builds the stack and listens (house rule 1). When ready it prints one JSON line on stdout
 * for scripts, CI and the conformance harness:
 * `{"event":"ready","base":URL,"wallet":URL,"site":URL,"caCert":PATH,"adminToken":TOKEN}` (adminToken only
 * on the first start). SIGINT or SIGTERM shuts down gracefully (D-264, src/server/shutdown.ts): /readyz answers
 * 503 at once and the listeners stop accepting; the requests, webhook attempts and transfer broadcasts in flight
 * finish within SVC_SHUTDOWN_TIMEOUT_MS (idle kept-alive connections are closed, answers carry
 * `Connection: close`); then the stack closes (the leader lease is given up, the Anvil child reaped), a summary
 * line goes to stderr, and the process exits 0.
 */
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { ensurePrivateDir } from '../storage/private-dir.ts';
import { buildStack, type Stack, type StackOptions } from './app.ts';
import { CLASSICAL_TLS_WARNING } from './tls/tls-options.ts';
import { CLASSICAL_RPC_WARNING } from './tls/classical-rpc.ts';
import { shutdown, shutdownSummary } from './shutdown.ts';

/** The ready line's content. */
export type ReadyEvent = {
  event: 'ready';
  base: string;
  wallet: string;
  site: string;
  caCert: string;
  /** D-259: the classical-TLS listener's origin (its /rpc and /ws), only when SVC_RPC_CLASSICAL_PORT is set. */
  rpcClassical?: string;
  adminToken?: string;
};

/** Refuses to run without OpenSSL 3.5 (ML-DSA, ML-KEM and X25519MLKEM768 need it). */
export function assertOpenSsl(): void {
  const [major = 0, minor = 0] = process.versions.openssl.split('.').map(Number);
  if (major < 3 || (major === 3 && minor < 5)) {
    throw new ConfigError(
      `svckit needs OpenSSL 3.5 or newer for ML-DSA-65, ML-KEM-768 and X25519MLKEM768 TLS; this Node ${process.versions.node} has OpenSSL ${process.versions.openssl}. Run through npm (npm start) to use the pinned Node 26.`,
    );
  }
}

const urlOf = (server: Stack['base']['server'], host: string) => {
  const { port } = server.address() as AddressInfo;
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
};

/** Builds and starts listening; returns the stack and the ready event. */
export async function listen(config: Config, options: StackOptions = {}): Promise<{ stack: Stack; ready: ReadyEvent }> {
  assertOpenSsl();
  // D-149: the data directory holds the keyring, the TLS key and the database (the service keys live sealed in the database, D-214): private to this user.
  if (options.persist) ensurePrivateDir(config.dataDir);
  const stack = await buildStack(config, options);
  try {
    await stack.base.listen({ host: config.host, port: config.basePort });
    await stack.wallet.listen({ host: config.host, port: config.walletPort });
    await stack.site.listen({ host: config.host, port: config.sitePort });
    const classical = stack.rpcClassical;
    if (classical && config.rpcClassicalPort !== undefined) {
      await new Promise<void>((resolve, reject) => {
        classical.once('error', reject);
        classical.listen({ host: config.host, port: config.rpcClassicalPort }, () => {
          classical.off('error', reject);
          resolve();
        });
      });
    }
  } catch (error) {
    await stack.close();
    throw error;
  }
  const ready: ReadyEvent = {
    event: 'ready',
    base: urlOf(stack.base.server, config.host),
    wallet: urlOf(stack.wallet.server, config.host),
    site: urlOf(stack.site.server, config.host),
    caCert: stack.tls.caCertPath,
    ...(stack.rpcClassical ? { rpcClassical: urlOf(stack.rpcClassical, config.host) } : {}),
    ...(stack.adminToken ? { adminToken: stack.adminToken } : {}),
  };
  return { stack, ready };
}

/**
 * Keeps `svckit serve` serving when a promise rejection escapes every listener: it is logged (name and message,
 * no stack or values that could carry a secret) instead of ending the process and all three origins with it.
 * A safety net only: every listener in src/ handles its own errors.
 */
export function guardUnhandledRejections(
  write: (line: string) => void = (line) => process.stderr.write(line),
): () => void {
  const onRejection = (reason: unknown) => {
    const text = reason instanceof Error ? `${reason.name}: ${reason.message}` : typeof reason;
    write(`svckit serve: an unhandled promise rejection was caught and the service keeps serving: ${text}\n`);
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}

/** Work the command layer runs beside the server once it is ready (e.g. the evidence build, D-153); stopped with it. */
export type ServeCompanion = { stop(): void };

/** Runs `svckit serve` until SIGINT or SIGTERM (exit code 2 for bad settings); `onReady` starts companions once the ready line is out. */
export async function serve(options: { onReady?: (config: Config) => ServeCompanion | undefined } = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    assertOpenSsl();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`svckit serve: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  guardUnhandledRejections();
  // D-157: a relaxed transport is announced on every start, on stderr (stdout carries only the ready line).
  if (config.tlsAllowClassical) console.error(CLASSICAL_TLS_WARNING);
  // D-259: so is the classical-TLS listener of /rpc and /ws.
  if (config.rpcClassicalPort !== undefined) console.error(CLASSICAL_RPC_WARNING);
  const { stack, ready } = await listen(config, { persist: true, logLevel: config.logLevel });
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const companion = options.onReady?.(config);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`svckit serve: ${signal} received, stopping (drain bound ${config.shutdownTimeoutMs} ms)`);
    companion?.stop();
    try {
      const report = await shutdown(stack, config.shutdownTimeoutMs);
      console.error(`svckit serve: ${shutdownSummary(report, config.shutdownTimeoutMs)}`);
      process.exit(0);
    } catch (error) {
      console.error(`svckit serve: stopping failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
