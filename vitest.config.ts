import { defineConfig } from 'vitest/config';
import { fullTierFiles } from './test/tiers.ts';

// Tests run on the pinned Node 26 (npm puts node_modules/.bin first on PATH). Two projects, the two tiers of
// D-227: `fast` is `npm test` (`vitest run --project fast`), `full` is the rest, which `npm run test:all` runs;
// `npx vitest run <file>` finds a file in either. With SVCKIT_TEST_REPORT set, a JSON report is written too, so
// .ci/run can print one summary line of the real totals.
const jsonReport = process.env.SVCKIT_TEST_REPORT;
// test/cluster starts PostgreSQL, Redis and several servers: `npm run test:cluster` (vitest.cluster.config.ts).
const outside = ['test/cluster/**', '**/node_modules/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...outside, ...fullTierFiles()] },
      },
      { extends: true, test: { name: 'full', include: fullTierFiles(), exclude: outside } },
    ],
  },
});
