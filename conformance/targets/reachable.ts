/**
 * Whether a target given by URL can be reached at all (exit code 3, D-232): one request to each origin, where
 * any HTTP answer counts as reachable and a refused connection, an unknown host, a failed TLS handshake or no
 * answer within the time-out does not.
 */
import { request } from '../http.ts';
import type { Target } from './target.ts';

/** One line per origin of `target` that cannot be reached, naming why. */
export async function unreachableOrigins(target: Target, timeoutMs = 15_000): Promise<string[]> {
  const urls = new Map<string, URL>();
  for (const url of [target.base, target.wallet, target.site, target.rpc])
    if (url && !urls.has(url.origin)) urls.set(url.origin, url);
  const down: string[] = [];
  for (const url of urls.values()) {
    try {
      await request(target, url, { method: 'GET', timeoutMs, paced: false, retryLimited: false });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      down.push(`${url.origin}: ${e.code ? `${e.code} ` : ''}${e.message}`);
    }
  }
  return down;
}
