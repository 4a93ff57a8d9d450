import { defineConfig } from 'vitest/config';

// The HTTP and client suites run twice: on memory storage, and on MongoDB with every other MongoDB test.
// The storage contracts run every registered backend in one file, so they run where the MongoDB server is.
const mongoOnly = ['test/adapters/mongo-*.test.ts', 'test/contract/*.test.ts'];

export default defineConfig({
  test: {
    // The CI machine has 2 cores.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ['./test/support/build-global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'memory', include: ['test/**/*.test.ts'], exclude: mongoOnly, provide: { storage: 'memory' } },
      },
      {
        extends: true,
        test: {
          name: 'mongodb',
          include: ['test/http/**/*.test.ts', 'test/client/**/*.test.ts', ...mongoOnly],
          provide: { storage: 'mongodb' },
          globalSetup: ['./test/support/mongo-global-setup.ts'],
          // Every file starts its own services and databases; sharing the module cache between files
          // (no per-file re-import) cuts this project from about 20 s to 9 s on the 2-core machine.
          isolate: false,
        },
      },
    ],
  },
});
