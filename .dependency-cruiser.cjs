// Sightline's module boundaries, checked by `npm run lint` (tools/check-boundaries.mjs).
// Paths are repository-relative; workspace packages resolve through their node_modules/@sightline
// symlinks to libs/<name>/… or apps/<name>/…, so every rule speaks of real files.
const fs = require('node:fs');
const path = require('node:path');

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Every entry point a workspace package publishes in its package.json "exports"
// ("." → src/index.ts, "./testing" → its test-support entry). Anything else inside
// another package is a deep import.
function packageEntries() {
  const entries = { public: [], testing: [] };
  for (const kind of ['apps', 'libs']) {
    for (const name of fs.readdirSync(path.join(__dirname, kind))) {
      const manifest = path.join(__dirname, kind, name, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const exportsMap = JSON.parse(fs.readFileSync(manifest, 'utf8')).exports ?? {};
      for (const [subpath, target] of Object.entries(typeof exportsMap === 'string' ? { '.': exportsMap } : exportsMap)) {
        if (typeof target !== 'string') continue;
        const file = escape(path.posix.join(kind, name, target));
        (subpath === '.' ? entries.public : entries.testing).push(file);
      }
    }
  }
  return entries;
}
const entries = packageEntries();
const publicEntry = `^(${entries.public.join('|')})$`;
const anyEntry = `^(${[...entries.public, ...entries.testing].join('|')})$`;
const testingEntry = `^(${entries.testing.join('|')})$`;

// Code that only tests (and benchmarks) run. Production = everything else under apps/*/src and libs/*/src.
const TEST_ONLY = ['\\.test\\.ts$', '\\.suite\\.ts$', '/test-support/', '/testing/', '/bench/', '^libs/testkit/', '^load-tests/', '^tools/'];
const testOnly = `(${TEST_ONLY.join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules form no import cycle.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-not-to-app',
      severity: 'error',
      comment: 'A lib never imports an app.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-not-to-other-app',
      severity: 'error',
      comment: 'An app never imports another app (only libs, its proto and the bus subjects). The launcher is the exception below.',
      from: { path: '^apps/(?!launcher/)([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'launcher-only-to-app-index',
      severity: 'error',
      comment: "The launcher composes the apps through each one's public index.ts (a ServiceModule, the gateway's buildGateway) and nothing deeper.",
      from: { path: '^apps/launcher/' },
      to: { path: '^apps/(?!launcher/)[^/]+/', pathNot: publicEntry },
    },
    {
      name: 'no-deep-import',
      severity: 'error',
      comment: 'Another package is reached only through an entry of its package.json exports (src/index.ts, or its ./testing entry).',
      from: { path: '^(apps|libs)/([^/]+)/' },
      to: { path: '^(apps|libs)/', pathNot: [`^$1/$2/`, anyEntry] },
    },
    {
      name: 'production-not-to-test-code',
      severity: 'error',
      comment:
        'Production src/ never imports test-only code: libs/testkit, a test-support/ or testing/ folder, a ./testing entry, a *.test.ts or *.suite.ts file or a benchmark.',
      from: { path: '^(apps|libs)/[^/]+/src/', pathNot: testOnly },
      to: { path: [testOnly, testingEntry] },
    },
    {
      name: 'dashboard-browser-only',
      severity: 'error',
      comment:
        'The dashboard page (apps/dashboard/src) runs in a browser: it imports only its own modules and its pinned UI packages (no node: builtins, no workspace package, nothing else bundled unseen).',
      from: { path: '^apps/dashboard/src/' },
      to: {
        pathNot: [
          '^apps/dashboard/src/',
          '^node_modules/(preact|@preact/signals|@preact/signals-core|uplot|fflate|d3-geo|d3-array|internmap|topojson-client|world-atlas)/',
          '^sightline:world-shapes$',
        ],
      },
    },
    {
      name: 'widgets-browser-only',
      severity: 'error',
      comment:
        "The widgets (apps/widgets/src) run on other sites' pages: they import only their own modules and cobe (no node: builtins, no workspace package, no framework runtime).",
      from: { path: '^apps/widgets/src/' },
      to: { pathNot: ['^apps/widgets/src/', '^node_modules/cobe/', '^sightline:world-shapes$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '^libs/proto/src/gen/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // Workspace packages export TypeScript sources; resolve "exports" like Node and tsx do.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
