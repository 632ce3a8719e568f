import { defineConfig } from 'vitest/config';

// The test projects. Each test file belongs to exactly one, by where it lives:
//   unit      libs' own tests, minus the store adapters: pure logic, no server (the fast loop); the Helm chart's;
//             the benches' summary helpers (load-tests/bench); the apps' pure steps (enrichment, sessions,
//             import lines, batch building, query steps), whose tests need no store unless their name says one
//   contract  the store adapters (db, bus, event-store, mailer) over both of their backends
//   service   each service app over real gRPC and real databases (PGlite and PostgreSQL)
//   e2e       the launcher started in-process or as a child process, spoken to over HTTP
//   browser   the tracker in Debian's Chromium
//   image     the OCI image built with buildah and run; after all the others (groupOrder 1),
//             since its gigabytes of disk writes would stall the other suites' fsyncs
// `npm test` runs all of them; `npm run test:<project>` one.
const E2E = 'apps/*/src/**/*.e2e.test.ts';
const BROWSER = 'apps/*/src/**/*.browser.test.ts';
const IMAGE = 'apps/*/src/**/*.image.test.ts';
// The apps' folders of pure logic. A test there that needs a store says so in its name
// (`x.chdb.test.ts`, `x.postgres.test.ts`, …) and stays in the service project.
const APP_UNITS = [
  'apps/ingest/src/{enrich,sessions,imports,writer}/**/!(*.@(chdb|postgres|pglite|integration)).test.ts',
  'apps/query/src/{query,catalogue}/**/!(*.@(chdb|postgres|pglite|integration)).test.ts',
];
const CONTRACT = [
  'libs/db/src/*-db.test.ts',
  'libs/bus/src/*-bus.test.ts',
  'libs/bus/src/*-bus-*.test.ts',
  'libs/event-store/src/*-event-store.test.ts',
  'libs/event-store/src/chdb-throughput.test.ts',
  'libs/mailer/src/*-mailer.test.ts',
  // the shared outbox table over PGlite and PostgreSQL
  'libs/outbox/src/outbox-table.test.ts',
];

export default defineConfig({
  test: {
    // Each test file runs in its own process: chDB allows one data directory per process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'libs/*/src/**/*.test.ts',
            'charts/*/tests/**/*.test.ts',
            'load-tests/bench/**/*.test.ts',
            'apps/dashboard/tests/**/*.test.ts',
            'apps/widgets/tests/**/*.test.ts',
            ...APP_UNITS,
          ],
          exclude: [...CONTRACT, '**/node_modules/**'],
        },
      },
      { extends: true, test: { name: 'contract', include: CONTRACT } },
      { extends: true, test: { name: 'service', include: ['apps/*/src/**/*.test.ts'], exclude: [E2E, BROWSER, IMAGE, ...APP_UNITS, '**/node_modules/**'] } },
      { extends: true, test: { name: 'e2e', include: [E2E] } },
      { extends: true, test: { name: 'browser', include: [BROWSER] } },
      { extends: true, test: { name: 'image', include: [IMAGE], sequence: { groupOrder: 1 } } },
    ],
  },
});
