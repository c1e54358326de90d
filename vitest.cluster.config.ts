import { defineConfig } from 'vitest/config';
import { sourceAliases } from './scripts/sdk-modules.ts';

// `npm run test:cluster`: several `svckit serve` processes on one PostgreSQL, one Redis and one chain node
// (test/cluster/harness.ts, D-183). Each file starts its own services, so files run one after another: on a
// small machine two clusters at once would only measure each other.
const jsonReport = process.env.SVCKIT_TEST_REPORT;

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
