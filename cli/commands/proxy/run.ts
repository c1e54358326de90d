/**
 * Runs `svckit proxy` (D-249): checks the options (a bad one: exit 2), makes or loads the listeners' TLS
 * material, starts the listeners, judges the upstreams' TLS group, and on SIGINT or SIGTERM (and every
 * `--report-interval`) writes the reports; exit 0 with no violation, 1 after violations, 3 when it cannot listen.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { SPECS_DIR } from '../../../src/paths.ts';
import type { ProxyCommandOptions } from '../proxy.ts';

/** A usage error: the message, exit 2. */
function usage(message: string): never {
  console.error(`svckit proxy: ${message}`);
  process.exit(2);
}

/** A whole number option within [min, max]. */
function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
    usage(`"--${name}" expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Starts the proxy and keeps it running until SIGINT or SIGTERM. */
export async function runProxy(options: ProxyCommandOptions, _command: Command): Promise<void> {
  const [{ remoteTarget }, { isLoopback }, { REPORT_FORMATS }] = await Promise.all([
    import('../../../conformance/targets/remote.ts'),
    import('../../../conformance/targets/rpc.ts'),
    import('../../../conformance/report/write.ts'),
  ]);
  let target: ReturnType<typeof remoteTarget>;
  let caCert: string | undefined;
  try {
    caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
    // The upstreams follow the rule of a run by URL: https, or http on loopback (D-233).
    target = remoteTarget({
      base: options.upstream,
      ...(options.walletUpstream ? { wallet: options.walletUpstream } : {}),
      ...(options.siteUpstream ? { site: options.siteUpstream } : {}),
      ...(caCert ? { caCert } : {}),
    });
  } catch (error) {
    usage(
      (error as Error).message.replace(/"(base|wallet|site)"/, (_m, n) => `"--${n === 'base' ? '' : `${n}-`}upstream"`),
    );
  }
  const formats = options.report.split(',').filter(Boolean);
  const unknown = formats.filter((f) => !(REPORT_FORMATS as readonly string[]).includes(f) || f === 'ndjson');
  if (unknown.length)
    usage(`"--report" expected a comma-separated list of json, junit, html, got ${JSON.stringify(options.report)}`);
  const ports = {
    base: integer('port', options.port, 0, 65535),
    wallet: integer('wallet-port', options.walletPort, 0, 65535),
    site: integer('site-port', options.sitePort, 0, 65535),
  };
  const bodyBound = integer('max-body', options.maxBody, 1024, 64 * 1024 * 1024);
  const timeoutMs = integer('timeout', options.timeout, 1, 3600) * 1000;
  const interval =
    options.reportInterval === undefined ? undefined : integer('report-interval', options.reportInterval, 1, 86_400);
  if (options.plainHttp && !isLoopback(options.host))
    usage(
      `"--plain-http" is allowed on a loopback --host only (127.0.0.1, ::1, localhost), got ${JSON.stringify(options.host)}`,
    );
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    usage('"--tls-cert" and "--tls-key" go together');

  let tls: { cert: string; key: string } | undefined;
  let caPath: string | undefined;
  if (!options.plainHttp) {
    try {
      if (options.tlsCert && options.tlsKey)
        tls = { cert: readFileSync(options.tlsCert, 'utf8'), key: readFileSync(options.tlsKey, 'utf8') };
      else {
        const { ensureDevCertificates } = await import('../../../src/server/tls/dev-certificates.ts');
        const material = await ensureDevCertificates(options.tlsDir, [options.host], 'svckit proxy development CA');
        tls = { cert: material.cert, key: material.key };
        caPath = material.caCertPath;
      }
    } catch (error) {
      usage(`TLS material: ${(error as Error).message}`);
    }
  }

  const [{ ProxyLedger }, { startProxy }, { writeProxyReports, harWriter }, { svckitVersion }] = await Promise.all([
    import('../../../conformance/proxy/ledger.ts'),
    import('../../../conformance/proxy/server.ts'),
    import('../../../conformance/proxy/reports.ts'),
    import('../../../conformance/report/index.ts'),
  ]);
  const ledger = new ProxyLedger((line) => process.stderr.write(`${line}\n`));
  const har = options.har ? harWriter(options.har, svckitVersion()) : undefined;
  const upstreams = {
    base: target.base as URL,
    ...(target.wallet ? { wallet: target.wallet } : {}),
    ...(target.site ? { site: target.site } : {}),
  };
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy({
      upstreams,
      ports,
      host: options.host,
      ...(tls ? { tls } : {}),
      ...(caCert ? { caCert } : {}),
      strict: options.strict === true,
      violationsHeader: options.violationsHeader,
      bodyBound,
      holdBudget: 64 * bodyBound,
      timeoutMs,
      specsDir: options.specs ? path.resolve(options.specs) : SPECS_DIR,
      ledger,
      ...(har ? { onExchange: har.add } : {}),
    });
  } catch (error) {
    console.error(`svckit proxy: cannot listen: ${(error as Error).message}`);
    process.exit(3);
  }
  for (const [origin, url] of Object.entries(proxy.urls))
    console.log(`svckit proxy: ${origin} ${url} -> ${upstreams[origin as keyof typeof upstreams]?.href}`);
  if (caPath) console.log(`svckit proxy: development CA ${caPath} (clients trust it, e.g. --ca-cert)`);
  const surfaceOf = { base: 'institutional', wallet: 'wallet', site: 'evidence' } as const;
  await ledger.judgeTls(
    Object.entries(upstreams).map(([origin, url]) => ({ url, surface: surfaceOf[origin as keyof typeof surfaceOf] })),
    caCert,
  );

  const context = {
    target,
    command: `svckit proxy ${process.argv.slice(process.argv.indexOf('proxy') + 1).join(' ')}`,
    upstream: options.upstream,
    formats: formats as ('json' | 'junit' | 'html')[],
    outDir: options.out,
  };
  const write = async (interrupted: boolean) => {
    try {
      const { written } = await writeProxyReports(ledger, { ...context, interrupted });
      return written;
    } catch (error) {
      console.error(`svckit proxy: reports not written: ${(error as Error).message}`);
      return [];
    }
  };
  const timer = interval ? setInterval(() => void write(false), interval * 1000) : undefined;
  timer?.unref();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    if (timer) clearInterval(timer);
    await proxy.close();
    har?.close();
    const written = await write(false);
    const c = ledger.counts;
    console.log(
      `svckit proxy: ${c.exchanges} exchanges, ${c.violations} violations, ${c.clientMistakes} client mistakes, ${c.notJudged} not judged; reports: ${written.filter((p) => !p.includes(`${path.sep}cases${path.sep}`)).join(', ') || 'none'}`,
    );
    process.exit(c.violations > 0 ? 1 : 0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
