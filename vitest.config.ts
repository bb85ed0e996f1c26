import { defineConfig } from 'vitest/config';

const ignored = ['**/node_modules/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/**/*.test.ts', 'services/**/*.test.ts', 'satellite/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: [...ignored, '**/*.int.test.ts', '**/*.e2e.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['**/*.int.test.ts'],
          exclude: ignored,
          testTimeout: 30000,
          hookTimeout: 60000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['**/*.e2e.test.ts'],
          exclude: ignored,
          testTimeout: 120000,
          hookTimeout: 120000,
          // End-to-end files start whole stacks of processes; one at a time on a 2-core machine.
          fileParallelism: false,
        },
      },
    ],
  },
});
