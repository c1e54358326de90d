// The leader lease (D-183) on a real PostgreSQL server, three contenders each on its own connection pool:
// exactly one holds it at any moment, a holder that stops hands it over within one renewal period, and a
// holder that can no longer reach the database stops counting itself leader within one lease length.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderLease } from '../../src/node/leader-lease.ts';
import { openDatabase, type OpenDatabase } from '../../src/storage/database.ts';
import { startPostgres, waitFor, type Service } from './services.ts';

const LENGTH_MS = 600;
let postgres: Service;
const databases: OpenDatabase[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  for (let i = 0; i < 3; i++) databases.push(await openDatabase({ databaseUrl: postgres.url, dataDir: null }));
});
afterAll(async () => {
  for (const db of databases) await db.close().catch(() => undefined);
  await postgres?.stop();
});

describe('the leader lease on PostgreSQL', () => {
  it('is held by exactly one contender; a stopped holder hands it over, a cut-off one lets go', async () => {
    const leases = databases.map(({ db }) => new LeaderLease(db, LENGTH_MS, 'test-lease'));
    await Promise.all(leases.map((lease) => lease.start()));
    // Over ten lease lengths, sampled every 20 ms: one leader, always the same one.
    const seen = new Set<string>();
    for (let t = 0; t < (10 * LENGTH_MS) / 20; t++) {
      const leaders = leases.filter((lease) => lease.isLeader());
      expect(leaders).toHaveLength(1);
      seen.add(leaders[0]!.holder);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen.size).toBe(1);

    // A holder that stops gives the row up: another takes it at its next try (a third of the length).
    const first = leases.find((lease) => lease.isLeader())!;
    const stoppedAt = performance.now();
    await first.stop();
    await waitFor('a second holder', async () => leases.some((lease) => lease !== first && lease.isLeader()), 5000);
    expect(performance.now() - stoppedAt).toBeLessThanOrEqual(LENGTH_MS);
    expect(first.isLeader()).toBe(false);
    const second = leases.find((lease) => lease.isLeader())!;

    // A holder whose database goes away keeps the lease no longer than one length after its last renewal,
    // and the row expires for the other contender on the database's clock.
    const index = leases.indexOf(second);
    await databases[index]!.close();
    const cutAt = performance.now();
    await waitFor('the cut-off holder letting go', async () => !second.isLeader(), 5000);
    expect(performance.now() - cutAt).toBeLessThanOrEqual(LENGTH_MS + 50);
    const third = leases.find((lease) => lease !== first && lease !== second)!;
    await waitFor('the last contender taking over', async () => third.isLeader(), 5000);
    expect(performance.now() - cutAt).toBeLessThanOrEqual(LENGTH_MS + LENGTH_MS / 3 + 200);
    for (const lease of leases) await lease.stop();
  });
});
