/**
 * The secrets `svckit conformance` takes (D-222): each from its flag, a file or an environment variable.
 * A variable counts only when its feature is asked for (`--rpc`, `--webhook-receiver`), so that one left in
 * the environment does not turn into a usage error; a flag or file given without its feature still is one.
 */
import { readSecret, type SecretOption } from '../secrets.ts';
import type { ConformanceOptions } from './options.ts';

type Named = SecretOption & {
  key: 'rpcSenderKey' | 'adminToken' | 'secondToken' | 'webhookSecret' | 'webhookPreviousSecret';
  valueName: string;
};

/** The secret options, in the order `--help` lists them. */
export const CONFORMANCE_SECRETS: readonly Named[] = [
  {
    key: 'rpcSenderKey',
    flag: 'rpc-sender-key',
    env: 'SVC_RPC_SENDER_KEY',
    valueName: 'hex',
    what: 'a funded key allowed to send on the --rpc node, enabling the checks that send transactions',
  },
  {
    key: 'adminToken',
    flag: 'admin-token',
    env: 'SVC_ADMIN_TOKEN',
    valueName: 'token',
    what: "the deployment's administrator token, enabling the checks that use the admin API",
  },
  {
    key: 'secondToken',
    flag: 'second-token',
    env: 'SVC_SECOND_TOKEN',
    valueName: 'token',
    what: 'an institutional API key of a second tenant, for institutional.cross_tenant_access (default: a key the run issues with the admin token)',
  },
  {
    key: 'webhookSecret',
    flag: 'webhook-secret',
    env: 'SVC_WEBHOOK_SECRET',
    valueName: 'secret',
    what: 'the secret the --webhook-receiver verifies deliveries with',
  },
  {
    key: 'webhookPreviousSecret',
    flag: 'webhook-previous-secret',
    env: 'SVC_WEBHOOK_PREVIOUS_SECRET',
    valueName: 'secret',
    what: 'a secret the --webhook-receiver held before, whose grace period is over (enables the rotation checks that need it)',
  },
];

/** Fills each secret of `options` from its flag, file or variable; throws a usage error naming no secret. */
export function resolveSecrets(options: ConformanceOptions, env: NodeJS.ProcessEnv = process.env): void {
  const asked: Record<Named['key'], boolean> = {
    rpcSenderKey: options.rpc !== undefined,
    adminToken: true,
    secondToken: true,
    webhookSecret: options.webhookReceiver !== undefined,
    webhookPreviousSecret: options.webhookReceiver !== undefined,
  };
  for (const secret of CONFORMANCE_SECRETS) {
    const value = readSecret(options as Record<string, unknown>, secret, env, asked[secret.key]);
    if (value === undefined) delete options[secret.key];
    else options[secret.key] = value;
  }
}
