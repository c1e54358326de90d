// Webhook signing secrets at rest (D-130): sealed under the KEK and bound to their endpoint, sealed at start
// when an older svckit left them in clear, and re-sealed by the KEK rotation (D-061) in its transaction.
// PGlite under `npm test`; the stores are the stack's own.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dateOf, ManualClock } from '../../src/clock.ts';
import { AccountStore } from '../../src/ledger/accounts.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { webhookEndpoints } from '../../src/storage/schema.ts';
import { EndpointStore } from '../../src/webhooks/endpoints.ts';
import { startWebhooks } from '../../src/webhooks/runtime.ts';
import { WebhookSecretBox } from '../../src/webhooks/secret-box.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('webhook_secrets');
const SECRET = 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU';
const OTHER = 'whsec_0000000000000000000000000000000000000000000';
const clock = new ManualClock(Date.parse('2026-11-22T02:00:00Z'));

const stored = async (id: string) => {
  const [row] = await fresh.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row!;
};

describe('webhook secrets at rest', () => {
  it('are stored sealed, never in clear, and open only for their own endpoint', async () => {
    const box = new WebhookSecretBox(Keyring.open({ dataDir: null }));
    const endpoints = new EndpointStore(fresh.database.db, clock, box);
    const [a, b] = [
      await endpoints.create({ url: 'https://127.0.0.1:9/a', accountIds: ['acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA'] }),
      await endpoints.create({ url: 'https://127.0.0.1:9/b', accountIds: ['acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA'] }),
    ];
    await endpoints.setSecret(a.id, SECRET, 3600);
    await endpoints.setSecret(b.id, SECRET, 0);
    const [rowA, rowB] = [await stored(a.id), await stored(b.id)];
    for (const value of [rowA.secret!, rowB.secret!]) {
      expect(WebhookSecretBox.isSealed(value)).toBe(true);
      expect(value).not.toContain(SECRET.slice(6, 20));
    }
    expect(rowA.secret).not.toBe(rowB.secret); // a fresh nonce each time
    expect(box.open(a.id, rowA.secret!)).toBe(SECRET);
    expect(() => box.open(b.id, rowA.secret!)).toThrow(); // moved to another endpoint, it does not open
    expect(() => box.open(a.id, SECRET)).toThrow(/not in its sealed form/);

    // D-047: the rotated-out secret stays sealed too, and setting the same secret again keeps no previous one.
    await endpoints.setSecret(a.id, OTHER, 3600);
    const rotated = await stored(a.id);
    expect([box.open(a.id, rotated.secret!), box.open(a.id, rotated.previousSecret!)]).toEqual([OTHER, SECRET]);
    await endpoints.setSecret(a.id, OTHER, 3600);
    expect((await stored(a.id)).previousSecret).toBeNull();
  });

  it('left in clear by an older svckit are sealed when the webhooks start', async () => {
    const keyring = Keyring.open({ dataDir: null });
    const [row] = await fresh.database.db
      .insert(webhookEndpoints)
      .values({
        id: 'whe_01JD5CLEARSECRET0000000000',
        url: 'https://127.0.0.1:9/c',
        description: '',
        events: ['payment.settled'],
        enabled: true,
        secret: SECRET,
        previousSecret: OTHER,
        createdAt: dateOf(clock),
        updatedAt: dateOf(clock),
      })
      .returning();
    const webhooks = await startWebhooks(fresh.database.db, new ManualClock(), keyring, {
      extraCa: [],
      concurrency: 1,
    });
    await webhooks.stop();
    const after = await stored(row!.id);
    expect(WebhookSecretBox.isSealed(after.secret!) && WebhookSecretBox.isSealed(after.previousSecret!)).toBe(true);
    expect([
      webhooks.secrets.open(row!.id, after.secret!),
      webhooks.secrets.open(row!.id, after.previousSecret!),
    ]).toEqual([SECRET, OTHER]);
  });

  it('are re-sealed under the new KEK by its rotation, after which the old KEK is gone', async () => {
    await fresh.database.db.delete(webhookEndpoints); // the rows above are sealed with other (test) keyrings
    const keyring = Keyring.open({ dataDir: null });
    const box = new WebhookSecretBox(keyring);
    const endpoints = new EndpointStore(fresh.database.db, clock, box);
    const endpoint = await endpoints.create({
      url: 'https://127.0.0.1:9/d',
      accountIds: ['acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA'],
    });
    await endpoints.setSecret(endpoint.id, SECRET, 0);
    const before = keyring.activeId;
    expect((await stored(endpoint.id)).secret).toContain(`:${before}:`);

    const accounts = new AccountStore(fresh.database.db, keyring, (tx) => box.resealAll(tx));
    const { kekId } = await accounts.rotateKek();
    expect(keyring.holds(before)).toBe(false);
    const after = (await stored(endpoint.id)).secret!;
    expect(after).toContain(`:${kekId}:`);
    expect(box.open(endpoint.id, after)).toBe(SECRET);
  });
});
