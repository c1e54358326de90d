// The background evidence build (D-153) runs without the server's secret settings (D-148, D-163): no key, no
// token and no database URL reaches the child process, and every other variable does.
import { describe, expect, it } from 'vitest';
import { buildEnvironment } from '../../conformance/evidence/at-start.ts';
import { SETTINGS } from '../../src/config.ts';

describe('the evidence build environment', () => {
  it('drops every setting the table marks secret and keeps the rest', () => {
    const secret = Object.entries(SETTINGS)
      .filter(([, row]) => row.secret)
      .map(([name]) => name);
    expect(secret).toEqual(expect.arrayContaining(['SVC_KEK', 'DATABASE_URL', 'SVC_ADMIN_TOKEN']));
    const env = Object.fromEntries([...secret, 'SVC_HOST', 'PATH', 'HOME'].map((name) => [name, `value of ${name}`]));
    expect(buildEnvironment(env)).toEqual({
      SVC_HOST: 'value of SVC_HOST',
      PATH: 'value of PATH',
      HOME: 'value of HOME',
    });
  });
});
