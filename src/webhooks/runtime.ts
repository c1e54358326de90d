/**
 * The webhook side of the stack (surface B): endpoint and delivery stores for the admin API, and the
 * dispatcher that sends what the payment lifecycle put in the outbox. Receivers are HTTPS only (D-019); the
 * dispatcher trusts the default CA store, the stack's development CA and SVC_WEBHOOK_CA_FILE (D-102).
 */
import tls from 'node:tls';
import type { Clock } from '@svckit/sdk/clock';
import type { Keyring } from '../ledger/keyring.ts';
import type { Database } from '../storage/database.ts';
import { DeliveryStore } from './deliveries.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { EndpointStore } from './endpoints.ts';
import { WebhookSecretBox } from './secret-box.ts';
import { WebhookTransport } from './transport.ts';

/** The running webhook parts. */
export type WebhookRuntime = {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  dispatcher: WebhookDispatcher;
  /** Seals the endpoints' secrets under the KEK (D-130); the KEK rotation re-seals them. */
  secrets: WebhookSecretBox;
  /** D-143: whether receivers may sit at loopback, private or link-local addresses (SVC_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Looks for due deliveries now (after a commit that emitted events, or when a test moved the clock). */
  wake(): void;
  stop(): Promise<void>;
};

/** Options of {@link startWebhooks}. */
export type WebhookOptions = {
  /** Extra PEM certificates to trust for receivers (the development CA, SVC_WEBHOOK_CA_FILE). */
  extraCa: string[];
  /** Attempts in flight at most. */
  concurrency: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** D-143: also deliver to loopback, private and link-local addresses (development and tests). Default false. */
  allowPrivate?: boolean;
  /** Hears unexpected dispatcher errors. */
  onError?: (error: unknown) => void;
  /** D-278: hears each finished attempt (the metrics). */
  onAttempt?: (number: number, success: boolean) => void;
};

/** Every certificate Node trusts by default (its bundled roots, plus the system store when enabled). */
const defaultCa = (): string[] =>
  typeof tls.getCACertificates === 'function' ? tls.getCACertificates('default') : [...tls.rootCertificates];

/**
 * Starts the dispatcher on `db`; every schedule time comes from `clock`; secrets are sealed with `keyring`.
 * Secrets an svckit before D-130 stored in clear are sealed first.
 */
export async function startWebhooks(
  db: Database,
  clock: Clock,
  keyring: Keyring,
  options: WebhookOptions,
): Promise<WebhookRuntime> {
  const secrets = new WebhookSecretBox(keyring);
  await db.transaction((tx) => secrets.sealClear(tx));
  const transport = new WebhookTransport(clock, {
    ca: [...defaultCa(), ...options.extraCa],
    maxSockets: options.concurrency,
    allowPrivate: options.allowPrivate ?? false,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
  });
  const dispatcher = new WebhookDispatcher(db, clock, transport, {
    concurrency: options.concurrency,
    secrets,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  });
  dispatcher.start();
  return {
    endpoints: new EndpointStore(db, clock, secrets),
    deliveries: new DeliveryStore(db, clock),
    dispatcher,
    secrets,
    allowPrivate: options.allowPrivate ?? false,
    wake: () => dispatcher.wake(),
    stop: async () => {
      await dispatcher.stop();
    },
  };
}

/** Splits a PEM bundle into its certificates. */
export function pemCertificates(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}
