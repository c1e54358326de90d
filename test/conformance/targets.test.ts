import { describe, expect, it } from 'vitest';
import { REFERENCE_TARGET_UNAVAILABLE, referenceTarget } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { specsOnlyTarget } from '../../conformance/targets/specs-only.ts';
import { describeTarget } from '../../conformance/targets/target.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('remoteTarget', () => {
  it('takes https URLs and offers one capability per URL, plus the specs', () => {
    const t = remoteTarget({ base: 'https://svc.example:8443', site: new URL('https://vendor.example/pq'), caCert: PEM });
    expect(t.kind).toBe('remote');
    expect(t.base?.href).toBe('https://svc.example:8443/');
    expect(t.site?.href).toBe('https://vendor.example/pq/');
    expect(t.wallet).toBeUndefined();
    expect([...t.capabilities].sort()).toEqual(['base', 'site', 'specs']);
    expect(describeTarget(t)).toEqual({
      kind: 'remote',
      base: 'https://svc.example:8443/',
      site: 'https://vendor.example/pq/',
      caCert: true,
      capabilities: ['base', 'site', 'specs'],
    });
  });

  it('refuses plain http (spec: "Plain HTTP connections are rejected")', () => {
    expect(() => remoteTarget({ base: 'http://svc.example' })).toThrow(/"base" expected an https URL, got "http:\/\/svc.example"/);
  });

  it('refuses text that is not a URL, URLs with credentials or a query, and an empty target', () => {
    expect(() => remoteTarget({ wallet: 'wallet.example' })).toThrow(/"wallet" expected an https URL/);
    expect(() => remoteTarget({ base: 'https://user:pw@svc.example' })).toThrow(/without credentials/);
    expect(() => remoteTarget({ site: 'https://vendor.example/?x=1' })).toThrow(/without query/);
    expect(() => remoteTarget({})).toThrow(/at least one of "base", "wallet", "site"/);
  });

  it('refuses a CA certificate that is not PEM text', () => {
    expect(() => remoteTarget({ base: 'https://svc.example', caCert: './ca.pem' })).toThrow(/"caCert" expected PEM/);
  });
});

describe('referenceTarget', () => {
  it('says plainly that the in-process stack does not exist yet', () => {
    expect(() => referenceTarget()).toThrow(REFERENCE_TARGET_UNAVAILABLE);
    expect(REFERENCE_TARGET_UNAVAILABLE).toBe(
      'the in-process reference stack is built by a later issue (Reference stack, part 1); use --base/--wallet/--site or the specs-only target',
    );
  });
});

describe('specsOnlyTarget', () => {
  it('offers only the specs', () => {
    const t = specsOnlyTarget();
    expect(t.kind).toBe('specs-only');
    expect([...t.capabilities]).toEqual(['specs']);
  });
});
