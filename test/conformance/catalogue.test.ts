// House rule 7: stable ids, a source (spec quote or decision), severity MUST for the spec and SHOULD
// for a decision, and "Registering the same id twice throws."
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalogue, CatalogueError, CHECK_ID_PREFIXES, type Check } from '../../conformance/catalogue.ts';
import { buildCatalogue } from '../../conformance/checks/index.ts';

const passing = async () => ({ status: 'passed' as const });

function check(overrides: Partial<Check> = {}): Check {
  return {
    id: 'institutional.auth.missing_credentials',
    title: 'a request without credentials gets 401',
    surface: 'A',
    source: { quote: 'missing or invalid credentials give 401' },
    severity: 'MUST',
    needs: ['base'],
    run: passing,
    ...overrides,
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogueError);
    return (err as CatalogueError).code;
  }
  return undefined;
}

describe('Catalogue.register', () => {
  it('keeps checks in registration order and finds them by id', () => {
    const cat = new Catalogue();
    cat.register(check());
    cat.register(
      check({ id: 'institutional.paging.limit_over_200', source: { decision: 'D-025' }, severity: 'SHOULD' }),
    );
    expect(cat.list().map((c) => c.id)).toEqual([
      'institutional.auth.missing_credentials',
      'institutional.paging.limit_over_200',
    ]);
    expect(cat.get('institutional.paging.limit_over_200')?.severity).toBe('SHOULD');
    expect(cat.get('institutional.nope')).toBeUndefined();
  });

  it('throws on a duplicate id and keeps the first registration', () => {
    const cat = new Catalogue();
    const first = check();
    cat.register(first);
    expect(codeOf(() => cat.register(check({ title: 'another title' })))).toBe('duplicate_id');
    expect(() => cat.register(check())).toThrow(/already registered/);
    expect(cat.list()).toEqual([first]);
  });

  it.each([
    'single',
    'Inst.auth',
    'institutional..auth',
    'institutional.auth.',
    '.inst.auth',
    'inst-auth.x',
    'institutional.auth x',
    '',
  ])('throws on the bad id %j', (id) => {
    expect(codeOf(() => new Catalogue().register(check({ id })))).toBe('bad_id');
  });

  it('accepts exactly one prefix per surface (generated for the checks over all), plus transport and admin on any surface', () => {
    expect(CHECK_ID_PREFIXES).toEqual([
      'institutional',
      'webhooks',
      'chain',
      'explorer',
      'wallet',
      'evidence',
      'specs',
      'generated',
      'transport',
      'admin',
    ]);
    const cat = new Catalogue();
    cat.register(check({ id: 'transport.tls.hybrid' })).register(check({ id: 'admin.accounts.create' }));
    cat
      .register(check({ id: 'chain.values.chain_id', surface: 'C' }))
      .register(check({ id: 'evidence.document.fresh', surface: 'F' }));
    expect(cat.list()).toHaveLength(4);
    for (const id of [
      'inst.auth.missing_credentials',
      'rpc.batch.empty',
      'webhook.delivery.headers',
      'chain.auth.x',
      'institutionalx.auth',
    ]) {
      expect(
        codeOf(() => new Catalogue().register(check({ id }))),
        id,
      ).toBe('bad_prefix');
    }
    expect(codeOf(() => new Catalogue().register(check({ id: 'webhooks.delivery.headers', surface: 'C' })))).toBe(
      'bad_prefix',
    );
  });

  it('throws when the severity does not follow from the source', () => {
    expect(codeOf(() => new Catalogue().register(check({ severity: 'SHOULD' })))).toBe('severity_mismatch');
    expect(codeOf(() => new Catalogue().register(check({ source: { decision: 'D-025' }, severity: 'MUST' })))).toBe(
      'severity_mismatch',
    );
  });

  it('throws on a quote that is not among the committed spec quotes (D-133)', () => {
    const bad = check({ source: { quote: 'missing credentials give 418' } });
    expect(codeOf(() => new Catalogue().register(bad))).toBe('unknown_quote');
    expect(codeOf(() => new Catalogue().register(check({ source: { quote: '   ' } })))).toBe('unknown_quote');
  });

  it('matches quotes with whitespace normalised (line breaks, table padding)', () => {
    const quote = 'The timestamp must be within\n   plus or minus 30 seconds\tof server time.';
    expect(() => new Catalogue().register(check({ source: { quote } }))).not.toThrow();
  });

  it('throws on a decision that is not in specs/DECISIONS.md', () => {
    const bad = check({ source: { decision: 'D-999' }, severity: 'SHOULD' });
    expect(codeOf(() => new Catalogue().register(bad))).toBe('unknown_decision');
    const malformed = check({ source: { decision: 'D-45' }, severity: 'SHOULD' });
    expect(codeOf(() => new Catalogue().register(malformed))).toBe('unknown_decision');
  });

  it('throws on an unknown capability, surface or an empty title', () => {
    expect(codeOf(() => new Catalogue().register(check({ needs: ['base', 'database' as never] })))).toBe('bad_need');
    expect(codeOf(() => new Catalogue().register(check({ surface: 'G' as never })))).toBe('bad_surface');
    expect(codeOf(() => new Catalogue().register(check({ title: ' ' })))).toBe('bad_title');
  });

  it('reads the spec and decision register from the paths it is given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-cat-'));
    writeFileSync(join(dir, 'spec.md'), 'Widgets MUST be\nblue.\n');
    writeFileSync(join(dir, 'DECISIONS.md'), '### D-007 Widget colour\n- **Choice:** blue\n');
    const cat = new Catalogue({ specPath: join(dir, 'spec.md'), decisionsPath: join(dir, 'DECISIONS.md') });
    cat.register(check({ id: 'institutional.colour', source: { quote: 'Widgets MUST be blue.' } }));
    cat.register(check({ id: 'institutional.decided', source: { decision: 'D-007' }, severity: 'SHOULD' }));
    expect(
      codeOf(() =>
        cat.register(check({ id: 'institutional.real', source: { decision: 'D-001' }, severity: 'SHOULD' })),
      ),
    ).toBe('unknown_decision');
  });
});

describe('buildCatalogue', () => {
  it('registers one examples_validate check per contract, all needing only the specs', () => {
    const cat = buildCatalogue();
    const specChecks = cat.list().filter((c) => c.surface === 'specs');
    expect(specChecks.map((c) => c.id)).toEqual([
      'specs.institutional.examples_validate',
      'specs.explorer.examples_validate',
      'specs.wallet_session.examples_validate',
      'specs.admin.examples_validate',
      'specs.webhooks.examples_validate',
      'specs.chain.examples_validate',
      'specs.evidence.examples_validate',
    ]);
    for (const c of specChecks) expect(c.needs).toEqual(['specs']);
    expect(cat.get('specs.admin.examples_validate')?.severity).toBe('SHOULD');
    expect(cat.get('specs.evidence.examples_validate')?.severity).toBe('MUST');
  });
});

describe('the whole catalogue', () => {
  it('gives every check a surface, a source and the severity its source implies', () => {
    const checks = buildCatalogue().list();
    expect(checks.length).toBeGreaterThan(7);
    for (const c of checks) expect(c.severity, c.id).toBe('quote' in c.source ? 'MUST' : 'SHOULD');
  });
});

describe('the generated checks in the registry (D-232)', () => {
  it('registers every named check of the engine and of the document surfaces, once, with its phases', async () => {
    const { NAMED_CHECKS } = await import('../../conformance/engine/core/names.ts');
    const { DOCUMENT_CHECKS } = await import('../../conformance/engine/core/documents.ts');
    const generated = buildCatalogue()
      .list()
      .filter((c) => c.origin === 'generated');
    const names = generated.map((c) => c.id.replace(/^generated\./, ''));
    for (const name of [...NAMED_CHECKS, ...DOCUMENT_CHECKS]) expect(names).toContain(name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of generated) {
      expect(c.surface).toBe('all');
      expect('phases' in c && c.phases.length).toBeGreaterThan(0);
    }
  });

  it('refuses a generated check registered twice', async () => {
    const { GENERATED_CHECKS } = await import('../../conformance/engine/core/registry.ts');
    const cat = new Catalogue();
    const first = GENERATED_CHECKS[0];
    if (!first) throw new Error('no generated check');
    cat.register(first);
    expect(() => cat.register(first)).toThrow(/already registered/);
  });
});
