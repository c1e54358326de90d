// The settings of the managed tier's email (D-210, D-213) are validated at start: a bad value is a message
// naming the variable, never repeating an SMTP URL (it may hold credentials).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return error;
  }
  throw new Error('expected a ConfigError');
};

describe('managed-tier email settings', () => {
  it('reads an smtp or smtps URL, the sender and the bounds', () => {
    const config = loadConfig({
      SVC_SMTP_URL: 'smtps://mailer:p%40ss@smtp.bank.example:465',
      SVC_SMTP_FROM: 'Bank wallet <wallet@bank.example>',
      SVC_MANAGED_CODES_PER_EMAIL: '3',
      SVC_MANAGED_CODES_PER_IP: '0',
    });
    expect(config.wallet.managed).toEqual({
      smtpUrl: 'smtps://mailer:p%40ss@smtp.bank.example:465',
      mailFrom: 'Bank wallet <wallet@bank.example>',
      codesPerEmail: 3,
      codesPerIp: 0,
    });
  });

  it('refuses another scheme, a URL without a host, a bad sender and bad bounds, never repeating the URL', () => {
    const secret = 'http://mailer:hunter2@smtp.bank.example';
    const scheme = refusal({ SVC_SMTP_URL: secret }) as ConfigError;
    expect(scheme).toBeInstanceOf(ConfigError);
    expect(scheme.message).toBe('SVC_SMTP_URL expected a smtp: or smtps: URL, got a http: URL');
    expect(scheme.message).not.toContain('hunter2');
    expect((refusal({ SVC_SMTP_URL: 'smtp://mailer:hunter2@' }) as Error).message).toMatch(/^SVC_SMTP_URL expected/);
    expect((refusal({ SVC_SMTP_FROM: 'wallet@bank.example\r\nBcc: x@y' }) as Error).message).toMatch(
      /^SVC_SMTP_FROM expected a mailbox/,
    );
    expect((refusal({ SVC_MANAGED_CODES_PER_EMAIL: '0' }) as Error).message).toBe(
      'SVC_MANAGED_CODES_PER_EMAIL expected a whole number from 1 to 1000, got "0"',
    );
    expect((refusal({ SVC_MANAGED_CODES_PER_IP: 'many' }) as Error).message).toMatch(
      /^SVC_MANAGED_CODES_PER_IP expected/,
    );
  });
});
