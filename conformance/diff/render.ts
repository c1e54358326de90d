/** The three outputs of `svckit diff` (D-246): a console table, JSON and Markdown. */
import { type Change, LEVELS } from './model.ts';

/** How many places a line names before it says how many more there are. */
const PLACES_SHOWN = 3;

function where(change: Change): string {
  return change.newPointer ?? change.oldPointer ?? '';
}

function places(change: Change): string {
  const shown = change.places.slice(0, PLACES_SHOWN).join('; ');
  return change.places.length > PLACES_SHOWN ? `${shown}; and ${change.places.length - PLACES_SHOWN} more` : shown;
}

/** The count of changes at each level. */
export function summary(changes: Change[]): Record<string, number> {
  return Object.fromEntries(LEVELS.map((level) => [level, changes.filter((c) => c.level === level).length]));
}

function summaryLine(changes: Change[]): string {
  const counts = summary(changes);
  return `${changes.length} change(s): ${LEVELS.map((level) => `${counts[level]} ${level}`).join(', ')}`;
}

/** A plain-text table for a terminal: level, rule and where, then the places and the explanation beneath. */
export function renderTable(changes: Change[], oldLabel: string, newLabel: string): string {
  const lines = [`svckit diff ${oldLabel} -> ${newLabel}`, summaryLine(changes)];
  if (changes.length === 0) return lines.join('\n');
  const width = Math.max(4, ...changes.map((change) => change.rule.length));
  lines.push('', `${'LEVEL'.padEnd(8)} ${'RULE'.padEnd(width)}  WHERE`);
  for (const change of changes) {
    lines.push('');
    lines.push(
      `${change.level.toUpperCase().padEnd(8)} ${change.rule.padEnd(width)}  ${change.contract}#${where(change)}`,
    );
    lines.push(`${' '.repeat(9)}at ${places(change)}`);
    lines.push(`${' '.repeat(9)}${change.message}`);
  }
  return lines.join('\n');
}

/** Markdown: a summary line and a table. */
export function renderMarkdown(changes: Change[], oldLabel: string, newLabel: string): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = [`**svckit diff** \`${oldLabel}\` → \`${newLabel}\`: ${summaryLine(changes)}`, ''];
  if (changes.length === 0) return lines.join('\n');
  lines.push('| level | rule | where | at | change |', '|---|---|---|---|---|');
  for (const change of changes)
    lines.push(
      `| ${change.level} | \`${change.rule}\` | \`${cell(`${change.contract}#${where(change)}`)}\` | ${cell(places(change))} | ${cell(change.message)} |`,
    );
  return lines.join('\n');
}

/** JSON: the two sides, the counts and every change. */
export function renderJson(changes: Change[], oldLabel: string, newLabel: string): string {
  return JSON.stringify({ old: oldLabel, new: newLabel, summary: summary(changes), changes }, null, 2);
}
