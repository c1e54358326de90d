/** The evidence document (D-271, D-275): when it was built, and whether it verifies. */
import { adminGetEvidenceStatus } from '@svckit/sdk/admin';
import { answer, client } from './api.ts';
import { h, table } from './dom.ts';

const SAID: Record<string, string> = {
  verified: 'Verified: the document passes every rule of svckit evidence verify.',
  unverified: 'Unverified: the document is stale (older than 30 days); rebuild it with svckit evidence build.',
  invalid: 'Invalid: the document breaks the rules listed below.',
  missing: 'Not built yet: svckit serve builds it at start, or run svckit evidence build.',
};

export async function evidenceView(main: HTMLElement): Promise<void> {
  const state = await answer(adminGetEvidenceStatus({ client }));
  main.replaceChildren(
    h('h2', {}, 'Evidence document'),
    h('p', { class: `state ${state.status}`, id: 'evidence-state' }, SAID[state.status] ?? state.status),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Built (generated)'),
      h('dd', {}, state.generated ?? '—'),
      h('dt', {}, 'Age'),
      h('dd', {}, state.ageDays === null ? '—' : `${state.ageDays} days`),
      h('dt', {}, 'Violations'),
      h('dd', {}, String(state.violationCount)),
    ),
    ...(state.violationCount
      ? [
          table(
            `Violations (${state.violations.length} of ${state.violationCount} shown)`,
            ['Rule', 'Path', 'Message'],
            state.violations.map((v) => [v.rule, h('code', {}, v.path), v.message]),
          ),
        ]
      : []),
    h('p', { class: 'hint' }, 'The site origin serves it at /.well-known/pqc-evidence.json.'),
  );
}
