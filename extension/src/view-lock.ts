/**
 * The wallet view's lock (D-177): the unlocked session lives in chrome.storage.session (held in memory by
 * the browser, never written to disk, gone when the browser closes) and counts as locked after
 * {@link UNLOCK_MS}. Shared by the view, the options page and the service worker (view-guard.ts).
 */
import { chromeApi } from './chrome.ts';

/** The view stays unlocked at most this long (15 minutes, or less when the session token expires sooner). */
export const UNLOCK_MS = 15 * 60 * 1000;

/** Storage keys of the view (local: sources; session: the unlocked state). */
export const VIEW_KEYS = Object.freeze({ sources: 'viewSources', unlocked: 'viewUnlocked' });

/** The unlocked session: public values and the session token only. */
export interface Unlocked {
  /** Epoch ms after which the view counts as locked. */
  until: number;
  svcId: string;
  /** Address at index 0 per family. */
  addresses: { evm: string; bitcoin: string; tron: string };
  /** Bearer token of the wallet session API, or why signing in failed. */
  session: { token: string; expiresAt: number } | { error: string };
}

interface SessionArea {
  get(keys: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string): Promise<void>;
}

/** chrome.storage.session (MV3, Chrome 102+): memory-only storage of trusted extension contexts. */
export function sessionArea(): SessionArea {
  return (chromeApi().storage as unknown as { session: SessionArea }).session;
}

/** The unlocked session, or undefined when locked (never unlocked, locked by hand, or expired). */
export async function readUnlocked(now = Date.now()): Promise<Unlocked | undefined> {
  const stored = (await sessionArea().get(VIEW_KEYS.unlocked))[VIEW_KEYS.unlocked] as Unlocked | undefined;
  return stored && stored.until > now ? stored : undefined;
}

/** Forgets the unlocked session. */
export function lock(): Promise<void> {
  return sessionArea().remove(VIEW_KEYS.unlocked);
}
