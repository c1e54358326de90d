// Prints one line, "N passed, N failed, N skipped", from the vitest JSON reports given as arguments
// (.ci/run: the README's test command, then the passes of `npm run test:all`). Skipped tests are never counted as passed.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
