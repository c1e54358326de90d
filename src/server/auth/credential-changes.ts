/**
 * D-170: a credential change (revocation, new permissions) made on one instance is announced on a Redis
 * channel, and every instance drops the credentials it remembers (D-129) when it hears one. A lost message
 * (Redis away, a subscriber reconnecting) costs at most CREDENTIAL_CACHE_MS (1 s): nothing is remembered
 * longer, so the bound holds without the announcement; the announcement makes the change take effect at once.
 */
import type { CredentialStore } from '../../ledger/credentials.ts';
import type { SharedState } from '../../storage/redis.ts';

/** The channel credential changes are announced on. */
export const CREDENTIAL_CHANNEL = 'svckit:credentials:changed';

/**
 * Announces every change made through `credentials` on the channel, and makes `credentials` forget what it
 * remembers on every announcement (its own included, harmlessly). `log` hears a failed announcement.
 */
export async function shareCredentialChanges(
  credentials: CredentialStore,
  shared: SharedState,
  log: (line: string) => void,
): Promise<void> {
  shared.subscriber.on('message', (channel: string) => {
    if (channel === CREDENTIAL_CHANNEL) credentials.forgetRemembered();
  });
  // ioredis subscribes again by itself after a reconnection (autoResubscribe).
  await shared.subscriber.subscribe(CREDENTIAL_CHANNEL);
  credentials.onChange(() => {
    shared.commands.publish(CREDENTIAL_CHANNEL, String(Date.now())).catch(() => {
      log(
        `svckit: a credential change could not be announced through Redis at ${shared.endpoint}; other instances apply it within 1 s (D-129)`,
      );
    });
  });
}
