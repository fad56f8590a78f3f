import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores here: threads, isolated per file (nock, the global dispatcher and env stay per file).
    pool: 'threads',
    // Cheap password hashing in-process (production keeps its cost): see the file.
    setupFiles: ['test/setup/password-hashing.ts'],
    // Every temporary directory of the run under one, removed at its end: see the file.
    globalSetup: ['test/setup/temp-root.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
