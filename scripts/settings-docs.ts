/**
 * The settings documentation, written from the settings table of src/config.ts (D-163): the block between
 * `<!-- settings:start -->` and `<!-- settings:end -->` in README.md, and docs/settings.md.
 * `npm run docs:settings` (`npx tsx scripts/settings-docs.ts --write`) writes both; a test fails when either
 * differs from what this script writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { SETTINGS, type Setting } from '../src/config.ts';

/** The README and the settings page. */
export const README = new URL('../README.md', import.meta.url);
export const SETTINGS_PAGE = new URL('../docs/settings.md', import.meta.url);

const START = '<!-- settings:start -->';
const END = '<!-- settings:end -->';
const NOTICE = 'Written by `npm run docs:settings` from the settings table of src/config.ts; do not edit.';

const rows = () => Object.entries(SETTINGS) as [string, Setting<unknown>][];

/** Plain text as one Markdown table cell: no line breaks, Markdown's special characters escaped. */
const cell = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/([\\|*<>])/g, '\\$1')
    .trim();
const code = (text: string | undefined) => (text === undefined || text === '' ? '–' : `\`${text}\``);
const readers = (setting: Setting<unknown>) =>
  setting.readBy.includes('svckit serve') ? '' : `read by ${setting.readBy.join(', ')}: `;

/** The README's settings block, markers included: every variable with its default, meaning and source. */
export function renderReadmeBlock(): string {
  return [
    START,
    `<!-- ${NOTICE} -->`,
    '| Variable | Default | Meaning | Carries out |',
    '|---|---|---|---|',
    ...rows().map(
      ([name, s]) =>
        `| \`${name}\` | ${code(s.default)} | ${cell(`${readers(s)}${s.description}${s.secret ? '; secret' : ''}`)} | ${cell(s.implements)} |`,
    ),
    END,
  ].join('\n');
}

/** docs/settings.md: every variable with its type, default, secrecy, meaning, source and readers. */
export function renderSettingsPage(): string {
  return [
    '# Settings',
    '',
    NOTICE,
    '',
    'svckit is configured by environment variables only (D-163). `svckit serve` reads and validates them at',
    'start: an unset or empty variable takes its default (only `SVC_FX_RATES` takes an empty value as given),',
    'and a bad value stops the start with a message naming the variable and exit code 2.',
    '`npx svckit serve --help` prints the same table. A secret value may hold a credential: keep it out of',
    'logs, shell history and version control.',
    '',
    '| Variable | Type | Default | Secret | Meaning | Carries out | Read by |',
    '|---|---|---|---|---|---|---|',
    ...rows().map(
      ([name, s]) =>
        `| \`${name}\` | ${cell(s.type)} | ${code(s.default)} | ${s.secret ? 'yes' : 'no'} | ${cell(s.description)} | ${cell(s.implements)} | ${cell(s.readBy.join(', '))} |`,
    ),
    '',
  ].join('\n');
}

/** `readme` with its settings block replaced by {@link renderReadmeBlock}; throws when the markers are missing. */
export function withReadmeBlock(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} block`);
  return readme.slice(0, start) + renderReadmeBlock() + readme.slice(end + END.length);
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write')) {
  writeFileSync(README, withReadmeBlock(readFileSync(README, 'utf8')));
  writeFileSync(SETTINGS_PAGE, renderSettingsPage());
}
