/**
 * Bounds of the `/ws` endpoint (D-135, D-136, D-137): sockets per credential and per client IP, and the
 * credential of every open socket checked again each second, so a revoked key (or one that lost
 * `chain:subscribe`) keeps no socket open.
 */
import type { WebSocket } from 'ws';
import type { Credential } from '../../../ledger/credentials.ts';
import { ErrorCode, RestError } from '../../http/errors.ts';

/** The `/ws` settings (SVC_WS_*, SVC_RATE_LIMIT_WS_UPGRADE; see src/config.ts). */
export type WsLimits = {
  /** D-135: subscriptions one socket may hold. */
  maxSubscriptions: number;
  /** D-135: open sockets per credential. */
  maxSocketsPerCredential: number;
  /** D-135: open sockets per client IP. */
  maxSocketsPerIp: number;
  /** D-136: bytes a socket may have queued unsent before it is closed as a slow consumer. */
  maxBufferedBytes: number;
  /** D-135: upgrade attempts per second per client IP, answered or not; 0 lifts it. */
  upgradesPerSecond: number;
};

/** D-137: how often the credentials of open sockets are read again. */
export const CREDENTIAL_RECHECK_MS = 1_000;

/** D-136, D-137: the close code for a slow consumer and for a credential that no longer allows /ws (RFC 6455 "policy violation"). */
export const POLICY_CLOSE = 1008;

/** Reads a credential again by id; undefined when it was revoked or removed. */
export type CredentialReader = (credential: Credential) => Promise<Credential | undefined>;

type Open = { socket: WebSocket; credential: Credential; ip: string };

/** The open sockets of one origin, by credential and by IP. */
export class SocketRegistry {
  private readonly open = new Set<Open>();
  private readonly perIp = new Map<string, number>();
  private readonly perCredential = new Map<string, number>();
  /** D-278: the subscription sets of the open sockets, counted by the metrics. */
  private readonly subscriptionSets = new Map<WebSocket, { readonly size: number }>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  /** `reread` is the credential store's lookup by id; `onError` hears a failed recheck (the next one tries again). */
  constructor(
    private readonly limits: WsLimits,
    private readonly reread: CredentialReader,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Throws 429 when one more socket for `credential` from `ip` would pass a D-135 cap. */
  assertRoom(credential: Credential, ip: string): void {
    if ((this.perCredential.get(credential.id) ?? 0) >= this.limits.maxSocketsPerCredential) {
      throw new RestError(
        ErrorCode.TOO_MANY_CONNECTIONS,
        `this credential already holds ${this.limits.maxSocketsPerCredential} open /ws connections, the most allowed`,
      );
    }
    if ((this.perIp.get(ip) ?? 0) >= this.limits.maxSocketsPerIp) {
      throw new RestError(
        ErrorCode.TOO_MANY_CONNECTIONS,
        `this IP address already holds ${this.limits.maxSocketsPerIp} open /ws connections, the most allowed`,
      );
    }
  }

  /** Counts an upgraded socket until it closes; false (and the socket closed) when a cap was reached meanwhile. */
  add(socket: WebSocket, credential: Credential, ip: string): boolean {
    try {
      this.assertRoom(credential, ip);
    } catch (error) {
      socket.close(POLICY_CLOSE, (error as Error).message.slice(0, 120));
      return false;
    }
    const entry: Open = { socket, credential, ip };
    this.open.add(entry);
    bump(this.perIp, ip, 1);
    bump(this.perCredential, credential.id, 1);
    socket.once('close', () => {
      this.open.delete(entry);
      this.subscriptionSets.delete(socket);
      bump(this.perIp, ip, -1);
      bump(this.perCredential, credential.id, -1);
    });
    this.timer ??= setInterval(() => void this.recheck(), CREDENTIAL_RECHECK_MS).unref();
    return true;
  }

  /** Counts the subscriptions of an open socket's set until the socket closes (D-278). */
  watch(socket: WebSocket, subscriptions: { readonly size: number }): void {
    if (socket.readyState === socket.OPEN) this.subscriptionSets.set(socket, subscriptions);
  }

  /** How many subscriptions the open sockets hold. */
  subscriptionCount(): number {
    let count = 0;
    for (const set of this.subscriptionSets.values()) count += set.size;
    return count;
  }

  /** How many sockets are open. */
  get size(): number {
    return this.open.size;
  }

  /** The server side of every open socket. */
  sockets(): WebSocket[] {
    return [...this.open].map((entry) => entry.socket);
  }

  /** Stops the recheck timer (the origin is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** D-137: reads each distinct credential once; closes the sockets of those revoked or without chain:subscribe. */
  private async recheck(): Promise<void> {
    if (this.checking) return;
    if (this.open.size === 0) return this.stop();
    this.checking = true;
    try {
      const byCredential = new Map<string, Open[]>();
      for (const entry of this.open)
        byCredential.set(entry.credential.id, [...(byCredential.get(entry.credential.id) ?? []), entry]);
      for (const entries of byCredential.values()) {
        const current = await this.reread(entries[0]!.credential);
        if (current?.permissions.includes('chain:subscribe')) continue;
        const reason = current ? 'the credential lost the chain:subscribe permission' : 'the credential was revoked';
        for (const { socket } of entries) socket.close(POLICY_CLOSE, reason);
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.checking = false;
    }
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
