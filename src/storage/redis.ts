/**
 * The optional shared state of several `svckit serve` instances (REDIS_URL, D-168): one ioredis client for
 * commands (the per-IP rate-limit counters, the SVC-MLDSA replay digests) and one subscriber connection for
 * the credential-change channel. Every wait is bounded; a Redis error never escapes as an unhandled event,
 * and no message ever carries the URL's user name or password.
 */
import { Redis } from 'ioredis';

/** The longest the first connection, or a reconnection, may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** The longest one command may take before it fails (the request then gets a 503, D-168). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
/** The longest pause between two reconnection attempts while Redis is away. */
const REDIS_RECONNECT_MAX_MS = 2_000;

/** Redis cannot be reached: at start (the stack refuses to start, D-168) or for one command. */
export class SharedStateUnavailableError extends Error {
  /** `what` says what failed; `redisUrl` is shown as scheme, host and port only. */
  constructor(what: string, redisUrl: string, cause?: unknown) {
    const reason = cause instanceof Error ? `: ${scrub(cause.message, redisUrl)}` : '';
    super(`${what}: Redis at ${redisEndpoint(redisUrl)} (REDIS_URL) is unavailable${reason}`);
    this.name = 'SharedStateUnavailableError';
  }
}

/** `redis://user:password@host:port/db` as `redis://host:port`: what a log or error may name. */
export function redisEndpoint(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the configured address';
  }
}

/** `text` with the URL, its user name and its password replaced, should a library message quote them. */
function scrub(text: string, redisUrl: string): string {
  let clean = text.split(redisUrl).join(redisEndpoint(redisUrl));
  try {
    const url = new URL(redisUrl);
    for (const secret of [url.password, decodeURIComponent(url.password), url.username]) {
      if (secret.length >= 3) clean = clean.split(secret).join('***');
    }
  } catch {
    // An unparsable URL was refused by the settings reader already.
  }
  return clean;
}

/** The open shared state: `commands` for counters and digests, `subscriber` for channels. */
export type SharedState = {
  readonly commands: Redis;
  readonly subscriber: Redis;
  /** `redis://host:port`, for messages. */
  readonly endpoint: string;
  close(): Promise<void>;
};

/** Options of {@link openSharedState}. */
export type SharedStateOptions = {
  /** Told once when Redis goes away and once when it is back; the text names host and port only. */
  log?: (line: string) => void;
};

/** The first error a client met since it last was ready. */
const lastErrors = new WeakMap<Redis, Error>();

/** A client with bounded waits that never queues commands while disconnected (they fail at once instead). */
function client(redisUrl: string, role: string, log: (line: string) => void): Redis {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_RECONNECT_MAX_MS),
    connectionName: `svckit-${role}`,
  });
  // 'connecting' until the first ready: a refusal then is the start's failure, reported by openSharedState.
  let state: 'connecting' | 'up' | 'away' = 'connecting';
  // An 'error' listener must exist: ioredis would otherwise print the error itself; none of these may crash.
  redis.on('error', (error: Error) => {
    if (!lastErrors.has(redis)) lastErrors.set(redis, error);
    if (state !== 'up') return;
    state = 'away';
    log(`svckit: shared state (${role}) lost: ${new SharedStateUnavailableError('Redis', redisUrl, error).message}`);
  });
  redis.on('ready', () => {
    lastErrors.delete(redis);
    if (state === 'away') log(`svckit: shared state (${role}) back: Redis at ${redisEndpoint(redisUrl)} answers again`);
    state = 'up';
  });
  return redis;
}

/**
 * Connects to `redisUrl` (D-168: fails, with SharedStateUnavailableError, when Redis refuses the connection or
 * the credentials, or does not answer within REDIS_CONNECT_TIMEOUT_MS, so a deployment that asked for shared
 * state never runs without it unknowingly).
 */
export async function openSharedState(redisUrl: string, options: SharedStateOptions = {}): Promise<SharedState> {
  const log = options.log ?? (() => undefined);
  const commands = client(redisUrl, 'commands', log);
  const subscriber = client(redisUrl, 'subscriber', log);
  const close = async () => {
    commands.disconnect();
    subscriber.disconnect();
  };
  try {
    // Both connections are tried; the first refusal ends the start (no reconnection attempts are waited for).
    await Promise.all([commands.connect(), subscriber.connect()]);
    await commands.ping();
  } catch (error) {
    await close();
    const cause = lastErrors.get(commands) ?? lastErrors.get(subscriber) ?? error;
    throw new SharedStateUnavailableError('svckit cannot start with shared state', redisUrl, cause);
  }
  return { commands, subscriber, endpoint: redisEndpoint(redisUrl), close };
}
