// D-135, D-136: the /ws bounds are settings with documented defaults, validated at start like every other.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';

describe('/ws settings', () => {
  it('default to D-135 and D-136 and refuse values outside their range with a clear message', () => {
    expect(loadConfig({}).ws).toEqual({
      maxSubscriptions: 100,
      maxSocketsPerCredential: 20,
      maxSocketsPerIp: 50,
      maxBufferedBytes: 4 * 1024 * 1024,
      upgradesPerSecond: 10,
    });
    expect(loadConfig({ SVC_RATE_LIMIT_WS_UPGRADE: '0' }).ws.upgradesPerSecond).toBe(0);
    expect(() => loadConfig({ SVC_WS_MAX_SUBSCRIPTIONS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_WS_MAX_BUFFERED_BYTES: '1024' })).toThrow(
      'SVC_WS_MAX_BUFFERED_BYTES expected a whole number from 65536 to 1073741824, got "1024"',
    );
  });
});
