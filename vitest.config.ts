import { defineConfig } from 'vitest/config';

// Tests run on the pinned Node 26 (npm puts node_modules/.bin first on PATH).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
