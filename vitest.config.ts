import { defineConfig } from 'vitest/config';

// Tests run on the pinned Node 26 (npm puts node_modules/.bin first on PATH). With SVCKIT_TEST_REPORT set,
// a JSON report is written too, so .ci/run can print one summary line of the real totals.
const jsonReport = process.env.SVCKIT_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/cluster starts PostgreSQL, Redis and several servers: `npm run test:cluster` (vitest.cluster.config.ts).
    exclude: ['test/cluster/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
