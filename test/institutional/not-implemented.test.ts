// An operation of the contract a stack leaves out has an explicit handler answering 501 NOT_IMPLEMENTED
// (never a missing route): a stack without the pacs.008 intake (D-053).
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { statusOf } from '../../src/server/http/error-codes.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { institutionalHandlers } from '../../src/server/institutional/service.ts';

describe('institutional handlers without payments', () => {
  it('answer POST /payments/pacs008 with 501 naming the operation', async () => {
    const handlers = institutionalHandlers({
      db: {} as never,
      accounts: {} as never,
      engine: {} as never,
      upstream: {} as never,
      clock: systemClock,
      platformBIC: 'SVCBUS33XXX',
    });
    const call = (handlers.institutionalSubmitPacs008Payment as unknown as () => Promise<unknown>)();
    await expect(call).rejects.toBeInstanceOf(RestError);
    await expect(call).rejects.toMatchObject({
      code: 'NOT_IMPLEMENTED',
      message: 'institutionalSubmitPacs008Payment is in the contract but not implemented by this server version',
    });
    expect(statusOf('NOT_IMPLEMENTED')).toBe(501);
  });
});
