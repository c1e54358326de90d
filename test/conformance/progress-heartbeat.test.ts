// The progress heartbeat (D-182) names what the running check waits for: the activity the runner gave this sink,
// never another run's check of the same name (D-232).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Activity, HEARTBEAT_MS, streamProgress } from '../../conformance/progress.ts';

const activity = (waitingFor: string): Activity => ({
  name: 'chain.batch.empty',
  waitingFor,
  retries: [],
  signal: new AbortController().signal,
});

afterEach(() => vi.useRealTimers());

describe('the progress heartbeat', () => {
  it("names the wait of its own run's activity, not of another run's check with the same name", () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const stream = { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    const mine = streamProgress(stream);
    const theirs = streamProgress({ isTTY: false, write: () => true } as unknown as NodeJS.WriteStream);
    mine.start('chain.batch.empty', 1, 1);
    mine.watch?.(activity('an answer to POST /rpc from https://mine.example'));
    theirs.start('chain.batch.empty', 1, 1);
    theirs.watch?.(activity('an answer to POST /rpc from https://theirs.example'));
    vi.advanceTimersByTime(HEARTBEAT_MS);
    expect(lines.at(-1)).toMatch(
      /chain\.batch\.empty still running after \d+ s, waiting for an answer to POST \/rpc from https:\/\/mine\.example\n$/,
    );
    mine.done();
    theirs.done();
  });
});
