// What `npm run bench` can run: each bench's name (what `npm run bench -- <word>` matches),
// what it measures and the environment variables that change it. load-tests/README.md
// describes the same list; run-all.test.ts holds the two together.
import { benchStartup } from './startup.js';
import { benchFootprint } from './footprint.js';
import { benchFootprintAfterWork } from './footprint-after-work.js';
import { benchAuth } from './auth.js';
import { benchSites } from './sites.js';
import { benchCollect } from './collect.js';
import { benchJsonBody } from './json-body.js';
import { benchEnrich } from './enrich.js';
import { benchGeo } from './geo.js';
import { benchIngest } from './ingest-pipeline.js';
import { benchImports } from './imports.js';
import { benchQuery } from './query.js';
import { benchFunnel } from './funnel.js';
import { benchTelemetry } from './telemetry.js';
import { benchDashboardLoad } from './dashboard-load.js';
import { benchShareCrowd } from './share-crowd.js';
import { benchDashboardSize } from './dashboard-size.js';
import { benchWidgetSize } from './widget-size.js';
import { benchWidgetCrowd } from './widget-crowd.js';
import { benchExport } from './export.js';

export interface Bench {
  name: string;
  measures: string;
  /** environment variables it reads (beyond TEST_DATABASE_URL / TEST_NATS_URL for the shared servers) */
  knobs: string[];
  run: () => Promise<Record<string, string | number>>;
}

export const BENCHES: readonly Bench[] = [
  {
    name: 'launcher and edge',
    measures: 'npm start cold start and warm restart, idle RSS beside bare Node, /healthz and /readyz throughput',
    knobs: [],
    run: benchStartup,
  },
  {
    name: 'idle footprint',
    measures: 'idle RSS of npm start (first start, warm restart) and of each --target alone on PostgreSQL, NATS and ClickHouse',
    knobs: [],
    run: benchFootprint,
  },
  {
    name: 'footprint after work',
    measures: "npm start's RSS before, at peak and idle 10/30/60 s after an import, collected events and reports (issue 29's workload)",
    knobs: [
      'FOOTPRINT_IMPORT_ROWS',
      'FOOTPRINT_EVENTS',
      'FOOTPRINT_QUERIES',
      'FOOTPRINT_BASELINE_ROOT',
      'FOOTPRINT_NODE_ARGS',
      'FOOTPRINT_HEAP_SNAPSHOT',
      'FOOTPRINT_LOG_LEVEL',
    ],
    run: benchFootprintAfterWork,
  },
  { name: 'authentication', measures: 'registration round trip; authenticated requests with the key cache warm and off', knobs: [], run: benchAuth },
  { name: 'sites', measures: 'POST /sites, GET /sites, PATCH /sites/{id} throughput and latency', knobs: [], run: benchSites },
  {
    name: 'collection',
    measures: 'POST /api/event events/s beside a bare fastify server, per composition (npm start, without ingest, --target=gateway → NATS)',
    knobs: ['BENCH_COLLECT_ROUNDS', 'BENCH_COLLECT_ONLY', 'BENCH_CPU_PROF_DIR'],
    run: benchCollect,
  },
  {
    name: 'JSON bodies',
    measures: "the gateway's JSON body check (nesting depth, prototype keys) per tracker event beside plain JSON.parse",
    knobs: [],
    run: benchJsonBody,
  },
  {
    name: 'enrichment steps',
    measures: 'user-agent parsing, bot detection, referrer spam, page parsing, source and channel per second',
    knobs: [],
    run: benchEnrich,
  },
  { name: 'geo lookup', measures: 'DB-IP open time and memory, lookups per second, beside maxmind with the file in memory', knobs: [], run: benchGeo },
  {
    name: 'ingestion',
    measures:
      'publish → bus → ingest → chDB on the local bus and JetStream: flood, paced and backlog events/s, CPU per event (JSON rows against TSV rows, A/B), latency, bytes per event, ratio to raw inserts',
    knobs: [
      'BENCH_INGEST_EVENTS',
      'BENCH_INGEST_PACED_EVENTS',
      'BENCH_INGEST_RATE',
      'BENCH_INGEST_BUSES',
      'BENCH_INGEST_WORKERS',
      'BENCH_BATCH_ROWS',
      'BENCH_INGEST_PROFILE',
      'BENCH_INGEST_ROW_FORMATS',
    ],
    run: benchIngest,
  },
  {
    name: 'imports',
    measures: 'an NDJSON import straight into the import runner: rows/s parsed and written, peak memory',
    knobs: ['BENCH_IMPORT_ROWS'],
    run: () => benchImports(),
  },
  {
    name: 'query',
    measures: 'every POST /query shape over 10M generated events: HTTP time beside the same statements run directly',
    knobs: ['QUERY_BENCH_EVENTS', 'QUERY_BENCH_RUNS', 'QUERY_BENCH_SEED', 'QUERY_BENCH_DATA_DIR', 'QUERY_BENCH_ONLY'],
    run: benchQuery,
  },
  {
    name: 'funnel',
    measures:
      "a 4-step funnel's report over 30 days, on the query bench's 10M events (5 sites, 90 days) and on 10M events of one site in 30 days: HTTP time beside the same statement run directly, ratio, CPU",
    knobs: ['FUNNEL_BENCH_EVENTS', 'FUNNEL_BENCH_DATA', 'QUERY_BENCH_RUNS', 'QUERY_BENCH_SEED'],
    run: benchFunnel,
  },
  {
    name: 'telemetry',
    measures: 'cost of metrics and tracing on a bus publish and an HTTP request, /metrics render time and size',
    knobs: [],
    run: benchTelemetry,
  },
  {
    name: 'dashboard-load',
    measures:
      'the share page of a site with 1M events in Chromium: navigation → every panel shown, cold and warm, beside the same queries sent straight to the API',
    knobs: ['DASHBOARD_BENCH_EVENTS', 'DASHBOARD_BENCH_RUNS', 'DASHBOARD_BENCH_SEED', 'DASHBOARD_BENCH_CACHE'],
    run: benchDashboardLoad,
  },
  {
    name: 'share-crowd',
    measures:
      "N viewers on one public dashboard at the UI's cadence (30d view, realtime view): requests/s, queries reaching the events store per s, p95 page data time, with the answer cache on and off",
    knobs: ['SHARE_CROWD_VIEWERS', 'SHARE_CROWD_SECONDS', 'SHARE_CROWD_POLL_SECONDS', 'SHARE_CROWD_EVENTS', 'SHARE_CROWD_VIEWS'],
    run: benchShareCrowd,
  },
  {
    name: 'widget-crowd',
    measures:
      'N viewers of the four widgets of one site polling on their schedule (live-users and globe every 30 s, countries and map every 5 min): events-store queries per widget per minute from the query service’s metrics, beside a run whose answers are not reused',
    knobs: ['WIDGET_CROWD_VIEWERS', 'WIDGET_CROWD_SECONDS', 'WIDGET_CROWD_BASELINE_VIEWERS', 'WIDGET_CROWD_BASELINE_SECONDS', 'WIDGET_CROWD_EVENTS'],
    run: benchWidgetCrowd,
  },
  {
    name: 'export',
    measures: 'GET /sites/{id}/export of 1M events per format: RSS before, at peak and after, beside the same rows read by one statement',
    knobs: ['EXPORT_BENCH_EVENTS', 'EXPORT_BENCH_LOG'],
    run: benchExport,
  },
  {
    name: 'dashboard-size',
    measures: "the dashboard's JS and CSS bytes per page route (raw, gzip, br) beside the 100 KB gzip budget",
    knobs: [],
    run: benchDashboardSize,
  },
  {
    name: 'widget-size',
    measures: "each embeddable widget's script bytes (raw, gzip, br) beside its brotli budget, and cobe's and the map outlines' alone",
    knobs: [],
    run: benchWidgetSize,
  },
];

export const BENCH_USAGE = [
  'usage: npm run bench [-- <word>…]   runs every bench, or those whose name contains one of the words',
  '',
  'benches:',
  ...BENCHES.map((b) => `  ${b.name.padEnd(18)} ${b.measures}${b.knobs.length > 0 ? `\n  ${''.padEnd(18)} knobs: ${b.knobs.join(', ')}` : ''}`),
  '',
  'Figures only, never a verdict; see load-tests/README.md for what each prints.',
].join('\n');
