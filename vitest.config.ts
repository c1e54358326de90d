import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { sourceAliases } from './scripts/sdk-modules.ts';
import { fullTierFiles, OWN_PROCESS } from './test/tiers.ts';

// Tests run on the pinned Node 26 (npm puts node_modules/.bin first on PATH). The two tiers of D-227: `npm test`
// runs the projects `fast` and `fast-own-process`, `npm run test:all` the project `full`; `npx vitest run <file>`
// finds a file in any. `fast` runs its files one after another in one process per worker (isolate: false), so
// the modules they share are loaded once per worker; files that mock modules get a process each. With SVCKIT_TEST_REPORT set, a JSON report is written too, so
// .ci/run can print one summary line of the real totals.
const jsonReport = process.env.SVCKIT_TEST_REPORT;
// test/cluster starts PostgreSQL, Redis and several servers: `npm run test:cluster` (vitest.cluster.config.ts).
const outside = ['test/cluster/**', '**/node_modules/**'];

export default defineConfig({
  // The repository imports the SDK by its package name; tests run its sources (D-229).
  resolve: { alias: sourceAliases() },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    // Vitest's default is one worker fewer than the cores: one on the 2-core machine. A file spends much of its
    // time waiting on its Anvil, PGlite thread and TLS peers, so every core gets a worker (D-227).
    maxWorkers: availableParallelism(),
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...outside, ...fullTierFiles(), ...OWN_PROCESS],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'fast-own-process', include: [...OWN_PROCESS], exclude: outside } },
      { extends: true, test: { name: 'full', include: fullTierFiles(), exclude: outside } },
    ],
  },
});
