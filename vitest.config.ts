import type { Reporter } from 'vitest/reporters';
import { defineConfig } from 'vitest/config';

/** Ends the run with one plain line, `N passed, N failed, N skipped`, for tools that read it. */
const summaryLine: Reporter = {
  onTestRunEnd(testModules) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  },
};

/**
 * Test files that run real Codex: run once per supported Codex version (the project name, shown
 * with every test, says which). Every other file runs once, against the default version.
 */
export const REAL_CODEX_TESTS = [
  'test/config/codex/**/*.test.ts',
  'test/config/compile/**/*.test.ts',
  'test/features/profile/**/*.test.ts',
  'test/features/session/**/*.test.ts',
  'test/features/smoke/**/*.test.ts',
  'test/runtime/approvals/**/*.test.ts',
  'test/runtime/codex/**/*.test.ts',
  'test/runtime/gateway/**/*.test.ts',
  'test/runtime/mesh/**/*.test.ts',
  'test/runtime/model-wire/**/*.test.ts',
  'test/runtime/protocol/**/*.test.ts',
  'test/runtime/session/**/*.test.ts',
  'test/cli/pin-checks-no-launch.test.ts',
  'test/cli/profile-doctor.test.ts',
  'test/config/profile/special-paths.test.ts',
  'test/docs/walkthrough.test.ts',
  'test/foundation/diagnostics/credential-scan.test.ts',
  'test/foundation/process/socket-filter.test.ts',
  'test/matrix/scenario-sample.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', summaryLine],
    projects: [
      {
        extends: true,
        test: {
          name: 'codex-0.171',
          include: ['test/**/*.test.ts'],
          env: { CODEX_MMO_TEST_CODEX: '0.171' },
        },
      },
      {
        extends: true,
        test: {
          name: 'codex-0.149',
          include: REAL_CODEX_TESTS,
          // the demo runs the default Codex whatever the project, and two at once share its ports
          exclude: ['test/features/session/demo.test.ts'],
          env: { CODEX_MMO_TEST_CODEX: '0.149' },
        },
      },
    ],
  },
});
