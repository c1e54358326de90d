// Prints the slowest test files of a vitest run as a Markdown table for docs/testing.md, from the run's own
// output (the default reporter's line per file: "✓ <project> <file> (<n> tests) <ms>ms", which counts the
// file's hooks, so a stack started in beforeAll is in it; imports are not):
// `npm test 2>&1 | tee run.log; node scripts/test-durations.js run.log [count]`.
import { readFileSync } from 'node:fs';

const [file, countText = '10'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/test-durations.js <vitest-output.log> [count]');
  process.exit(2);
}
// Colour codes out, then one row per file line.
const ESCAPE = String.fromCharCode(27);
const text = readFileSync(file, 'utf8').replaceAll(new RegExp(`${ESCAPE}\\[[0-9;]*m`, 'g'), '');
const rows = [...text.matchAll(/^ [✓❯×] +(?:(\S+) +)?(test\/\S+\.test\.ts) \((\d+) tests?(?: \| [^)]*)?\) (\d+)ms$/gm)]
  .map(([, project, path, tests, ms]) => ({ project, path, tests: Number(tests), seconds: Number(ms) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((sum, row) => sum + row.seconds, 0);
console.log('| file | tests | seconds |');
console.log('|---|---:|---:|');
for (const row of rows.slice(0, Number(countText))) {
  console.log(`| \`${row.path}\` | ${row.tests} | ${row.seconds.toFixed(1)} |`);
}
console.log(`\n${rows.length} files, ${total.toFixed(0)} s in their tests and hooks in all (two workers run them).`);
