// The cleanup registry (D-182): undoes endpoints before credentials before accounts, newest first, reports what
// it could not undo and forgets what a check removed itself; and the plain-line progress a CI log shows.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  cleanUp,
  describeCleanup,
  forgetCreated,
  pendingCleanup,
  registerCreated,
  registered,
  registerLeft,
} from '../../conformance/cleanup.ts';
import { streamProgress } from '../../conformance/progress.ts';
import type { Target } from '../../conformance/targets/target.ts';

const newTarget = (): Target => ({ kind: 'remote', capabilities: new Set() });

describe('cleanup registry', () => {
  it('undoes endpoints, then keys, then accounts, newest first; failures are reported and the rest still run', async () => {
    const target = newTarget();
    const order: string[] = [];
    const add = (kind: string, id: string, fail = false) =>
      registerCreated(target, {
        kind,
        id,
        undo: async () => {
          order.push(id);
          if (fail) throw new Error('HTTP 500');
        },
      });
    add('account', 'acc1');
    add('API key', 'key1');
    add('webhook endpoint', 'whe1');
    add('API key', 'key2', true);
    add('webhook endpoint', 'whe2');
    add('account', 'acc2');
    add('webhook endpoint', 'whe3');
    forgetCreated(target, 'webhook endpoint', 'whe3');
    const summary = await cleanUp(target);
    expect(order).toEqual(['whe2', 'whe1', 'key2', 'key1', 'acc2', 'acc1']);
    expect(summary).toEqual({
      undone: { 'webhook endpoint': 2, 'API key': 1, account: 2 },
      failures: ['API key key2: HTTP 500'],
    });
    expect(describeCleanup(summary)).toBe(
      'cleaned up 2 webhook endpoints, 1 API key, 2 accounts; 1 could not be undone: API key key2: HTTP 500',
    );
    expect(pendingCleanup(target)).toEqual([]);
    expect(describeCleanup(await cleanUp(target))).toBe('nothing to clean up');
  });

  it('lists what the run left as history by kind and reason, and knows what the run made (D-235)', async () => {
    const target = newTarget();
    const why = 'a transfer is ledger history: confirmed is final and never reversed (D-006)';
    registerLeft(target, { kind: 'transfer', id: 'TXN1', why });
    registerLeft(target, { kind: 'transfer', id: 'TXN2', why });
    registerLeft(target, { kind: 'sign-in challenge', why: 'a challenge lapses after 5 minutes (D-145)' });
    registerCreated(target, { kind: 'account', id: 'acc1', undo: async () => undefined });
    expect(registered(target, 'transfer', 'TXN2')).toBe(true);
    expect(registered(target, 'account', 'acc1')).toBe(true);
    expect(registered(target, 'account', 'acc2')).toBe(false);
    const summary = await cleanUp(target);
    expect(summary).toEqual({
      undone: { account: 1 },
      failures: [],
      left: [
        { kind: 'transfer', count: 2, why },
        { kind: 'sign-in challenge', count: 1, why: 'a challenge lapses after 5 minutes (D-145)' },
      ],
    });
    expect(describeCleanup(summary)).toBe('cleaned up 1 account; left as history: 2 transfers, 1 sign-in challenge');
    expect(registered(target, 'transfer', 'TXN2')).toBe(false);
  });
});

describe('progress on a stream that is not a terminal', () => {
  it('writes one line per finished check with the counts so far, and notes', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).setEncoding('utf8').on('data', (c: string) => (text += c));
    let now = 0;
    const progress = streamProgress(stream, () => now);
    progress.start('chain.one', 1, 2);
    now = 2_000;
    progress.end('chain.one', 'passed', { passed: 1, failed: 0, skipped: 0 });
    progress.start('chain.two', 2, 2);
    progress.end('chain.two', 'failed', { passed: 1, failed: 1, skipped: 0 });
    progress.note('cleaned up 1 API key');
    progress.done();
    expect(text).toBe(
      [
        'conformance 2 s PASS chain.one (1 passed, 0 failed, 0 skipped)',
        'conformance 2 s FAIL chain.two (1 passed, 1 failed, 0 skipped)',
        'conformance 2 s cleaned up 1 API key',
        '',
      ].join('\n'),
    );
  });
});
