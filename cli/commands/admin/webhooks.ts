/**
 * `svckit admin webhooks endpoints|secret|deliveries|redeliver`: webhook endpoints, their signing secrets and
 * deliveries through `/admin/v1/webhooks` (D-019, D-047, D-060, D-142). D-158: a secret never goes on the
 * command line (process lists show it): it comes from a file, stdin, or is generated and printed once.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { DeliveryStatus, EventType, WebhookDelivery, WebhookEndpoint } from '@svckit/sdk/admin';
import { adminSdk } from './sdk.ts';
import {
  action,
  AdminCliError,
  adminClient,
  answer,
  connectionOptions,
  integer,
  list,
  print,
  table,
  type AdminOptions,
} from './connection.ts';

type EndpointOptions = AdminOptions & {
  url?: string;
  accounts?: string[];
  events?: string[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
};

/** Endpoints as a text table. */
export function endpointTable(endpoints: WebhookEndpoint[]): string {
  return table(
    ['ID', 'URL', 'ENABLED', 'SECRET', 'EVENTS', 'ACCOUNTS'],
    endpoints.map((e) => [
      e.id,
      e.url,
      e.enabled ? 'yes' : 'no',
      e.hasSecret ? 'set' : 'none',
      e.events.join(','),
      e.accountIds.join(','),
    ]),
  );
}

/** One delivery and its attempts, as lines of text. */
export function describeDelivery(d: WebhookDelivery): string {
  const head = `${d.id}  ${d.event.padEnd(19)} ${d.status.padEnd(9)} round ${d.round}  endpoint ${d.endpointId}  uetr ${d.uetr}${d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : ''}`;
  const attempts = d.attempts.map(
    (a) =>
      `    ${a.round}.${a.number}  ${a.startedAt}  ${String(a.durationMs).padStart(6)} ms  ${a.outcome.padEnd(7)} ${a.responseStatus ?? a.error ?? ''}`,
  );
  return [head, ...attempts].join('\n');
}

function endpointsCommand(): Command {
  const command = new Command('endpoints').description("HTTPS endpoints that receive an institution's payment events.");
  const fields = (c: Command) =>
    c
      .option('--accounts <ids>', 'comma-separated account ids whose payments the endpoint receives (D-142)', list)
      .option('--events <list>', 'comma-separated event types (default: all five)', list)
      .option('--description <text>', 'a label');
  command.addCommand(
    fields(connectionOptions(new Command('create')))
      .description('Register an endpoint (https only); set its secret next with `webhooks secret`.')
      .requiredOption('--url <url>', 'the https URL that receives the POSTs')
      .option('--disable', 'register it disabled')
      .action(
        action(async (options: EndpointOptions) => {
          const sdk = await adminSdk();
          const body = {
            url: options.url!,
            accountIds: options.accounts ?? [],
            ...(options.events ? { events: options.events as EventType[] } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.disable ? { enabled: false } : {}),
          };
          print(options, answer(await sdk.adminCreateWebhookEndpoint({ client: adminClient(options), body })), (e) =>
            endpointTable([e]),
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List the endpoints.')
      .action(
        action(async (options: AdminOptions) =>
          print(
            options,
            answer(await (await adminSdk()).adminListWebhookEndpoints({ client: adminClient(options) })),
            (l) => endpointTable(l.endpoints),
          ),
        ),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('get'))
      .description('Show one endpoint.')
      .argument('<id>', 'endpoint id (whe_…)')
      .action(
        action(async (id: string, options: AdminOptions) =>
          print(
            options,
            answer(await (await adminSdk()).adminGetWebhookEndpoint({ client: adminClient(options), path: { id } })),
            (e) => endpointTable([e]),
          ),
        ),
      ),
  );
  command.addCommand(
    fields(connectionOptions(new Command('update')))
      .description("Change an endpoint's URL, accounts, events, label, or enable or disable it.")
      .argument('<id>', 'endpoint id (whe_…)')
      .option('--url <url>', 'a new https URL')
      .option('--enable', 'deliver to it')
      .option('--disable', 'stop delivering to it')
      .action(
        action(async (id: string, options: EndpointOptions) => {
          const sdk = await adminSdk();
          if (options.enable && options.disable) throw new AdminCliError('--enable and --disable exclude each other');
          const body = {
            ...(options.url !== undefined ? { url: options.url } : {}),
            ...(options.accounts !== undefined ? { accountIds: options.accounts } : {}),
            ...(options.events !== undefined ? { events: options.events as EventType[] } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
          };
          print(
            options,
            answer(await sdk.adminUpdateWebhookEndpoint({ client: adminClient(options), path: { id }, body })),
            (e) => endpointTable([e]),
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('delete'))
      .description('Delete an endpoint; its pending deliveries become dead (D-060).')
      .argument('<id>', 'endpoint id (whe_…)')
      .action(
        action(async (id: string, options: AdminOptions) => {
          const sdk = await adminSdk();
          answer(await sdk.adminDeleteWebhookEndpoint({ client: adminClient(options), path: { id } }));
          print(options, { deleted: id }, () => `deleted ${id}`);
        }),
      ),
  );
  return command;
}

function secretCommand(): Command {
  return connectionOptions(new Command('secret'))
    .description(
      "Set or rotate an endpoint's signing secret (D-047): from --secret-file (- for stdin), or --generate one.",
    )
    .argument('<id>', 'endpoint id (whe_…)')
    .option('--secret-file <file>', 'a file holding the secret (32 to 256 printable characters); - reads stdin')
    .option('--generate', 'generate a random secret and print it once')
    .option(
      '--grace-period <seconds>',
      'how long the previous secret still signs (0 to 604800; default the server’s)',
      integer,
    )
    .action(
      action(
        async (
          id: string,
          options: AdminOptions & { secretFile?: string; generate?: boolean; gracePeriod?: number },
        ) => {
          if ((options.secretFile === undefined) === !options.generate)
            throw new AdminCliError('give exactly one of --secret-file and --generate');
          const secret = options.generate
            ? `whsec_${randomBytes(32).toString('base64url')}`
            : readFileSync(options.secretFile === '-' ? 0 : options.secretFile!, 'utf8').trim();
          const body = {
            secret,
            ...(options.gracePeriod !== undefined ? { gracePeriodSeconds: options.gracePeriod } : {}),
          };
          const endpoint = answer(
            await (await adminSdk()).adminSetWebhookSecret({ client: adminClient(options), path: { id }, body }),
          );
          // The server never returns the secret; a generated one is printed here, once, for the receiver.
          const shown = options.generate ? { ...endpoint, secret } : endpoint;
          print(
            options,
            shown,
            (e) => `${endpointTable([e])}${options.generate ? `\nsecret (shown once): ${secret}` : ''}`,
          );
        },
      ),
    );
}

function deliveriesCommand(): Command {
  const command = new Command('deliveries').description('Webhook deliveries with their attempts.');
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List deliveries, newest first, with their attempts.')
      .option('--status <status>', 'pending, delivered or dead')
      .option('--endpoint <id>', 'only deliveries to this endpoint')
      .option('--page <n>', 'page number', integer, 1)
      .option('--limit <n>', 'deliveries per page (1 to 200)', integer, 50)
      .action(
        action(
          async (
            options: AdminOptions & { status?: DeliveryStatus; endpoint?: string; page: number; limit: number },
          ) => {
            const query = {
              page: options.page,
              limit: options.limit,
              ...(options.status ? { status: options.status } : {}),
              ...(options.endpoint ? { endpointId: options.endpoint } : {}),
            };
            const page = answer(
              await (await adminSdk()).adminListWebhookDeliveries({ client: adminClient(options), query }),
            );
            print(options, page, (p) =>
              [
                `${p.total} deliveries; page ${p.page} (${p.deliveries.length} shown)`,
                ...p.deliveries.map(describeDelivery),
              ].join('\n'),
            );
          },
        ),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('get'))
      .description('Show one delivery with its attempts.')
      .argument('<id>', 'the delivery id (X-SVC-Delivery)')
      .action(
        action(async (id: string, options: AdminOptions) =>
          print(
            options,
            answer(await (await adminSdk()).adminGetWebhookDelivery({ client: adminClient(options), path: { id } })),
            describeDelivery,
          ),
        ),
      ),
  );
  return command;
}

/** Builds the `webhooks` sub-command. */
export function webhooksCommand(): Command {
  return new Command('webhooks')
    .description('Webhook endpoints, secrets and deliveries.')
    .addCommand(endpointsCommand())
    .addCommand(secretCommand())
    .addCommand(deliveriesCommand())
    .addCommand(
      connectionOptions(new Command('redeliver'))
        .description('Redeliver a DEAD delivery: a new round of up to five attempts, same X-SVC-Delivery (D-060).')
        .argument('<id>', 'the delivery id (X-SVC-Delivery)')
        .action(
          action(async (id: string, options: AdminOptions) =>
            print(
              options,
              answer(await (await adminSdk()).adminRedeliverWebhook({ client: adminClient(options), path: { id } })),
              describeDelivery,
            ),
          ),
        ),
    );
}
