/**
 * `svckit proxy --upstream <base_url>`: a reverse proxy in front of a deployment (or of a client's traffic in a
 * test environment) that forwards every exchange unchanged and judges it against the contracts with the
 * generated checks' ids (D-249). Violations go to stderr as JSON lines and into `X-Svckit-Violations`; on
 * SIGINT or SIGTERM, and every `--report-interval`, the reports of `svckit conformance` are written.
 */
import { Command } from 'commander';

/** The options as commander gives them. */
export type ProxyCommandOptions = {
  upstream: string;
  walletUpstream?: string;
  siteUpstream?: string;
  host: string;
  port: string;
  walletPort: string;
  sitePort: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsDir: string;
  plainHttp?: boolean;
  caCert?: string;
  strict?: boolean;
  violationsHeader: boolean;
  report: string;
  out: string;
  reportInterval?: string;
  har?: string;
  maxBody: string;
  timeout: string;
  specs?: string;
};

/** Builds the `proxy` sub-command. */
export function proxyCommand(): Command {
  return new Command('proxy')
    .description(
      'A reverse proxy that forwards traffic to a deployment unchanged and judges every exchange against the contracts (the generated checks of `svckit conformance`).',
    )
    .requiredOption('--upstream <url>', '{base_url} of the deployment (https, or http on loopback)')
    .option('--wallet-upstream <url>', '{wallet_api_url} of the deployment')
    .option('--site-upstream <url>', '{site_url} of the deployment')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port of the base origin (0: ephemeral)', '9443')
    .option('--wallet-port <n>', 'port of the wallet origin', '9444')
    .option('--site-port <n>', 'port of the site origin', '9445')
    .option('--tls-cert <file>', "PEM certificate of the proxy's listeners (with --tls-key)")
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--tls-dir <dir>', 'folder of the development CA and certificate made on first start', '.svckit-proxy')
    .option('--plain-http', 'listen on plain http (only with a loopback --host)')
    .option('--ca-cert <file>', "PEM file of an extra CA the upstreams' certificates chain to")
    .option('--strict', "answer 502 with the violations instead of an upstream's answer that breaks the contract")
    .option('--no-violations-header', 'do not add X-Svckit-Violations to answers')
    .option(
      '--report <formats>',
      'reports written on exit and every --report-interval: json,junit,html',
      'json,junit,html',
    )
    .option('--out <dir>', 'folder for the reports', 'reports/proxy')
    .option('--report-interval <s>', 'also write the reports every s seconds')
    .option('--har <file>', 'record the traffic as HAR 1.2, credentials and secrets redacted (svckit replay --entry)')
    .option('--max-body <bytes>', 'bytes of one body the judges see; a longer one is forwarded, not judged', '1048576')
    .option('--timeout <s>', "seconds to wait for the upstream's answer", '60')
    .option('--specs <dir>', 'folder of the contracts (default: the ones svckit ships)')
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped with no violation, 1 stopped after violations, 2 bad usage, 3 the proxy could not listen.',
    )
    .action(async (options: ProxyCommandOptions, command: Command) => {
      const { runProxy } = await import('./proxy/run.ts');
      await runProxy(options, command);
    });
}
