// Reading an answer of the wallet surfaces only once it is the expected one: a 429 (D-024: the /auth and
// /managed sign-in window is 5 per second per IP, which a loaded machine reaches) carries no `data`.
import { expect } from 'vitest';

type Answer = { response?: Response; data?: unknown; error?: unknown };

/**
 * Calls until the answer is not 429, waiting out each Retry-After (at most 5 s each, 20 s in all), then
 * requires `status` with a message that says what was called and what came back, instead of reading a body
 * a 429 does not carry.
 */
export async function answered<T extends Answer>(what: string, status: number, call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const result = await call();
    const got = result.response?.status;
    if (got === 429 && Date.now() < deadline) {
      const wait = Math.min(5, Math.max(1, Number(result.response?.headers.get('retry-after')) || 1));
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    expect(
      got,
      `${what}: expected HTTP ${status}, got ${got ?? 'no answer'} ${JSON.stringify(result.error ?? '')}`,
    ).toBe(status);
    return result;
  }
}
