/**
 * The console's link to `/admin/v1`: the generated admin SDK's client (D-271), the admin token held in this
 * module's memory only (D-273: never in storage, a cookie or the URL; a reload asks again), and the one way an
 * answer is read, which shows the server's `{error}` text for every failure.
 */
import { createClient } from '@svckit/sdk/admin/client';

let adminToken: string | undefined;

/** The SDK client every view passes as `client`; it sends the token held here as `Authorization: Bearer`. */
export const client = createClient({ baseUrl: `${location.origin}/admin/v1`, auth: () => adminToken });

export const signIn = (token: string) => {
  adminToken = token;
};
export const signOut = () => {
  adminToken = undefined;
};
export const signedIn = () => adminToken !== undefined;

/** A failure to show as it is: the server's `{error}` text, or why there was no answer. */
export class Shown extends Error {}

/** The data of an SDK answer; throws {@link Shown} with the server's `{error}` otherwise. */
export async function answer<T>(pending: Promise<{ data?: T; error?: unknown; response?: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response?: Response };
  try {
    result = await pending;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Shown(`no usable answer from the server: ${message}`);
  }
  if (result.error === undefined && result.response?.ok) return result.data as T;
  const body = result.error;
  if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string')
    throw new Shown(body.error);
  throw new Shown(
    `HTTP ${result.response?.status ?? 'error'}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
  );
}
