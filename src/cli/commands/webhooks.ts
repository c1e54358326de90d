/**
 * `svckit webhooks`: webhook deliveries of a running server through its admin API (issue 5: "The admin API and
 * CLI list deliveries with their attempts, and redeliver DEAD ones"). PGlite is single-process, so the CLI
 * talks to the server over HTTPS, never to its files (DESIGN.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { Command } from 'commander';
import type { WebhookDelivery, WebhookDeliveryPage } from '../../../generated/admin/types.gen';

type Connection = { base: string; adminToken?: string; caCert?: string };

/** One admin API call; resolves with the status and parsed body. */
function call(options: Connection, method: string, route: string): Promise<{ status: number; body: unknown }> {
  const token = options.adminToken ?? process.env.SVC_ADMIN_TOKEN;
  if (!token) throw new Error('an administrator token is needed: --admin-token or SVC_ADMIN_TOKEN');
  const caFile = options.caCert ?? path.join(process.env.SVC_DATA_DIR || '.data', 'tls', 'ca.pem');
  const url = new URL(`admin/v1${route}`, options.base.endsWith('/') ? options.base : `${options.base}/`);
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers: { authorization: `Bearer ${token}` }, ...(existsSync(caFile) ? { ca: readFileSync(caFile, 'utf8') } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One delivery and its attempts, as lines of text. */
export function describeDelivery(d: WebhookDelivery): string {
  const head = `${d.id}  ${d.event.padEnd(19)} ${d.status.padEnd(9)} round ${d.round}  endpoint ${d.endpointId}  uetr ${d.uetr}${d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : ''}`;
  const attempts = d.attempts.map((a) => `    ${a.round}.${a.number}  ${a.startedAt}  ${String(a.durationMs).padStart(6)} ms  ${a.outcome.padEnd(7)} ${a.responseStatus ?? a.error ?? ''}`);
  return [head, ...attempts].join('\n');
}

const fail = (message: string) => {
  console.error(`svckit webhooks: ${message}`);
  process.exit(2);
};

/** Builds the `webhooks` sub-command. */
export function webhooksCommand(): Command {
  const command = new Command('webhooks').description('Webhook deliveries of a running svckit server (admin API).');
  const common = (c: Command) =>
    c
      .option('--base <url>', 'HTTPS root of the server ({base_url})', 'https://localhost:8443')
      .option('--admin-token <token>', 'administrator token (default SVC_ADMIN_TOKEN)')
      .option('--ca-cert <file>', 'PEM file of the CA to trust (default <SVC_DATA_DIR>/tls/ca.pem)');
  command.addCommand(
    common(new Command('deliveries'))
      .description('List deliveries, newest first, with their attempts.')
      .option('--status <status>', 'pending, delivered or dead')
      .option('--endpoint <id>', 'only deliveries to this endpoint')
      .option('--page <n>', 'page number', '1')
      .option('--limit <n>', 'deliveries per page (1 to 200)', '50')
      .option('--json', 'print the API answer as JSON')
      .action(async (options: Connection & { status?: string; endpoint?: string; page: string; limit: string; json?: boolean }) => {
        const query = new URLSearchParams({ page: options.page, limit: options.limit, ...(options.status ? { status: options.status } : {}), ...(options.endpoint ? { endpointId: options.endpoint } : {}) });
        const { status, body } = await call(options, 'GET', `/webhooks/deliveries?${query}`).catch((e: Error) => fail(e.message));
        if (status !== 200) return fail(`HTTP ${status}: ${JSON.stringify(body)}`);
        const page = body as WebhookDeliveryPage;
        if (options.json) return console.log(JSON.stringify(page, null, 2));
        console.log(`${page.total} deliveries; page ${page.page} (${page.deliveries.length} shown)`);
        for (const d of page.deliveries) console.log(describeDelivery(d));
      }),
  );
  command.addCommand(
    common(new Command('redeliver'))
      .description('Redeliver a DEAD delivery: a new round of up to five attempts, same X-SVC-Delivery (D-060).')
      .argument('<id>', 'the delivery id (X-SVC-Delivery)')
      .action(async (id: string, options: Connection) => {
        const { status, body } = await call(options, 'POST', `/webhooks/deliveries/${encodeURIComponent(id)}/redeliver`).catch((e: Error) => fail(e.message));
        if (status !== 202) return fail(`HTTP ${status}: ${JSON.stringify(body)}`);
        console.log(describeDelivery(body as WebhookDelivery));
      }),
  );
  return command;
}
