// Prints the slowest test files of a vitest JSON report (SVCKIT_TEST_REPORT=<file> npm test writes one), as a
// Markdown table for docs/testing.md: `node scripts/test-durations.js <report.json> [count]`. A file's time is
// from its first test's start to its last test's end, as the report gives it (its imports and hooks outside).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, countText = '10'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/test-durations.js <vitest-report.json> [count]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const rows = report.testResults
  .map((result) => ({
    file: path.relative(process.cwd(), result.name),
    seconds: (result.endTime - result.startTime) / 1000,
    tests: result.assertionResults.length,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((sum, row) => sum + row.seconds, 0);
console.log('| file | tests | seconds |');
console.log('|---|---:|---:|');
for (const row of rows.slice(0, Number(countText))) console.log(`| \`${row.file}\` | ${row.tests} | ${row.seconds.toFixed(1)} |`);
console.log(`\n${rows.length} files, ${total.toFixed(0)} s of test time in all (the files run two at a time).`);
