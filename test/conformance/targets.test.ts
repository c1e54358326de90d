import { describe, expect, it } from 'vitest';
import { request } from '../../conformance/http.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { plainHttpOrigins, remoteTarget } from '../../conformance/targets/remote.ts';
import { specsOnlyTarget } from '../../conformance/targets/specs-only.ts';
import { describeTarget } from '../../conformance/targets/target.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('remoteTarget', () => {
  it('takes https URLs and offers one capability per URL, plus the specs', () => {
    const t = remoteTarget({
      base: 'https://svc.example:8443',
      site: new URL('https://vendor.example/pq'),
      caCert: PEM,
    });
    expect(t.kind).toBe('remote');
    expect(t.base?.href).toBe('https://svc.example:8443/');
    expect(t.site?.href).toBe('https://vendor.example/pq/');
    expect(t.wallet).toBeUndefined();
    expect([...t.capabilities].sort()).toEqual(['base', 'rpc', 'site', 'specs']);
    expect(describeTarget(t)).toEqual({
      kind: 'remote',
      base: 'https://svc.example:8443/',
      site: 'https://vendor.example/pq/',
      caCert: true,
      capabilities: ['base', 'rpc', 'site', 'specs'],
    });
  });

  it('refuses plain http (spec: "Plain HTTP connections are rejected") except on a loopback address (D-233)', () => {
    expect(() => remoteTarget({ base: 'http://svc.example' })).toThrow(
      /"base" expected an https URL, or http on a loopback address \(127\.0\.0\.1, ::1, localhost\), got "http:\/\/svc.example"/,
    );
    expect(() => remoteTarget({ wallet: 'http://10.0.0.1:8444/' })).toThrow(/"wallet" expected an https URL/);
    const local = remoteTarget({ base: 'http://127.0.0.1:4010', site: 'https://vendor.example/' });
    expect(local.base?.href).toBe('http://127.0.0.1:4010/');
    expect(plainHttpOrigins(local)).toEqual(['--base http://127.0.0.1:4010']);
    expect(plainHttpOrigins(remoteTarget({ base: 'https://svc.example' }))).toEqual([]);
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
  it('starts the in-process stack on ephemeral ports with real TLS and stops it', async () => {
    const target = await referenceTarget();
    try {
      expect(target.kind).toBe('reference');
      expect([...target.capabilities].sort()).toEqual(['admin', 'base', 'reference', 'rpc', 'site', 'specs', 'wallet']);
      expect(target.adminToken).toMatch(/^svcadm_[A-Za-z0-9_-]{43}$/);
      const health = await request(target, 'admin/v1/health');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({ status: 'ok', chainId: 1111111 });
      expect(health.tlsGroup).toBe('X25519MLKEM768');
    } finally {
      await target.close!();
    }
    await expect(request(target, 'admin/v1/health', { timeoutMs: 2000 })).rejects.toThrow();
  });
});

describe('specsOnlyTarget', () => {
  it('offers only the specs', () => {
    const t = specsOnlyTarget();
    expect(t.kind).toBe('specs-only');
    expect([...t.capabilities]).toEqual(['specs']);
  });
});
