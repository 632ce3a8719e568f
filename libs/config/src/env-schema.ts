import { z } from 'zod';

/**
 * Every environment variable Sightline reads, in one schema. Each entry carries its
 * default and a description; README.md's configuration table is rendered from this
 * schema (`npm run docs:config`), so the two never disagree.
 */
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

const positiveInt = z.coerce.number().int().positive();

const url = z.string().url();

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** `host:port`, or `dns:///name:port` (every replica behind the name; `dns://server:port/name:port` asks that DNS server) */
const grpcAddress = z.string().regex(/^(dns:\/\/[A-Za-z0-9.\-_[\]:]*\/)?[A-Za-z0-9.\-_[\]:]+:\d+$/, 'expected host:port or dns:///host:port');

export const ENV_SCHEMA = z.object({
  // -- HTTP edge
  PORT: port.default(8080).describe('HTTP port of the gateway.'),
  HOST: z.string().default('0.0.0.0').describe('Interface the gateway listens on.'),
  PUBLIC_URL: url.optional().describe('Public base URL of the service (script URLs, links in mail). Default: `http://localhost:<PORT>`.'),
  WRITES_ENABLED: bool.default(true).describe('`false` switches off every write route (404 `write_disabled`); reads keep working.'),
  BODY_LIMIT_BYTES: positiveInt.default(65_536).describe('Largest accepted request body on `/api/v1`; larger bodies get 413 `payload_too_large`.'),
  IMPORT_MAX_BYTES: positiveInt
    .default(104_857_600)
    .describe(
      'Largest import upload (`POST /sites/{id}/imports`, streamed, never held whole); larger bodies get 413 `payload_too_large`. Split bigger histories into several imports.',
    ),
  TRUSTED_PROXIES: csv
    .default([])
    .describe(
      'Comma-separated addresses/CIDRs of proxies whose `X-Forwarded-For` is believed. Empty: the socket address is the client (a private address sending `X-Forwarded-For` then logs a warning: set the proxy here).',
    ),
  // -- stores
  SIGHTLINE_DATA_DIR: z.string().default('./.data').describe('Directory of the embedded stores (PGlite, chDB, bus journal, mail outbox).'),
  DATABASE_URL: url.optional().describe('PostgreSQL URL. Unset: embedded PGlite in the data dir.'),
  CLICKHOUSE_URL: url.optional().describe('ClickHouse HTTP URL (credentials in the URL). Unset: embedded chDB in the data dir.'),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('sightline')
    .describe('ClickHouse database holding the events tables.'),
  EVENTS_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .optional()
    .describe(
      'Days raw events and visits are kept (ClickHouse TTL on `events` and `sessions`, applied at start-up, rows dropped as parts merge); the hourly roll-ups keep the aggregates for good, so a range reaching further back is answered from them (`meta.from_rollups`) when it can be, else 400 `outside_retention`. Unset: kept for good.',
    ),
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional()
    .describe(
      'ClickHouse cluster name. Set: migrations create `ON CLUSTER` Replicated tables (`<table>_local`) and Distributed tables sharded by site. Unset: plain tables on one server.',
    ),
  QUERY_MAX_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(1_073_741_824)
    .describe(
      'Most memory one statement of a report (`POST /query`, `GET /props`) may use in the events store (ClickHouse `max_memory_usage`), 1 GiB by default; a report past it answers 422 `query_too_large` instead of growing the shared engine. 0: no limit of Sightline’s (a ClickHouse server’s own profile applies).',
    ),
  CHDB_MAX_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(2_147_483_648)
    .describe(
      'Embedded chDB only (no `CLICKHOUSE_URL`): most memory the engine as a whole may hold (ClickHouse `max_server_memory_usage`), 2 GiB by default; past it a statement fails (a report answers 503 `unavailable`) instead of the process growing. Its caches are bounded too (64 MiB of marks). 0: ClickHouse’s default, 90 % of RAM.',
    ),
  NATS_URL: z.string().optional().describe('NATS URL (JetStream enabled). Unset: the in-process bus, journaled in the data dir.'),
  LOCAL_BUS_MAX_STREAM_BYTES: positiveInt
    .default(536_870_912)
    .describe(
      'In-process bus only (no `NATS_URL`): most bytes of unconsumed messages one stream holds, 512 MiB by default (about 1.7 million collected events, held in memory too: ~1 GB of heap). Past it `POST /api/event` answers 503 `unavailable` until ingest catches up, instead of the process growing until it runs out of memory. On NATS the backlog is on the server’s disk, within its JetStream storage limits (`max_file_store`, account limits); a refused publish answers the same 503.',
    ),
  SMTP_URL: z
    .string()
    .optional()
    .describe(
      'SMTP URL: `smtp://[user:pass@]host[:587]` (STARTTLS when offered) or `smtps://…[:465]`; options `?ignoreTLS=true`, `?requireTLS=true`, `?rejectUnauthorized=false`. Unset: mail is written as `.eml` files to `MAIL_OUTBOX_DIR` (single-process mode: `<data dir>/mail/`).',
    ),
  MAIL_OUTBOX_DIR: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      'Directory of the `.eml` outbox used when `SMTP_URL` is unset. Default: `<data dir>/mail/` in single-process mode. `--target=identity` without `SMTP_URL` refuses to start unless this is set on purpose: each replica writes to its own disk, where sign-in codes reach nobody.',
    ),
  MAIL_FROM: z.string().default('Sightline <no-reply@localhost>').describe('Sender address of outgoing mail.'),
  // -- identity, keys and plans
  SECRET_KEY: z
    .string()
    .min(32, 'at least 32 characters')
    .optional()
    .describe(
      'Server secret (≥ 32 chars) keying the hashes of one-time codes and the widget keys. Required when identity or sites runs alone; `npm start` generates one in `<data dir>/secret-key`.',
    ),
  TERMS_VERSION: z.string().min(1).max(50).default('2026-11-01').describe('Version of the terms of service recorded with each acceptance.'),
  TERMS_URL: url
    .optional()
    .describe(
      'Where your terms of service are published; linked from the sign-in mail and the OpenAPI description, and `GET /terms` redirects there. Unset: `GET /terms` serves the bundled default terms.',
    ),
  KEYS_PER_ACCOUNT: positiveInt.default(10).describe('Cap of active (unrevoked, unexpired) API keys per account; beyond it 400 `key_limit_reached`.'),
  TRIAL_DAYS: positiveInt.default(30).describe('Length of the trial that starts with an account’s first non-hobby site.'),
  PLAN_GRACE_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .default(14)
    .describe('Days tracking goes on after a trial ends without a subscription; then the account’s sites lapse.'),
  KEY_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe('How long a gateway trusts a verified key before asking identity again (revocations are pushed at once regardless).'),
  REPORT_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe(
      'How long a gateway uses an account’s plan state, and a key’s confirmed reach to a site, for POST /query and GET /props before asking identity and sites again (subscription changes, member removals, revoked keys and deleted sites are pushed at once regardless). 0: ask every time.',
    ),
  GATEWAY_STALE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(60_000)
    .describe(
      'While identity or sites is unreachable (a restart), how long after their last confirmation a gateway may still accept a verified key and serve a report’s reach, site context and plan; older ones answer 503. Never used while the services answer. 0: never.',
    ),
  BUDGET_WRITE_PER_HOUR: positiveInt.default(1_000).describe('Hourly budget of write requests per account.'),
  BUDGET_ACCOUNT_PER_HOUR: positiveInt.default(20_000).describe('Hourly budget of authenticated requests per account, all keys together.'),
  BUDGET_KEY_PER_HOUR: positiveInt.default(10_000).describe('Hourly budget of authenticated requests per API key.'),
  USAGE_SYNC_INTERVAL_MS: positiveInt.default(1_000).describe('How often a gateway shares its budget counts with the other replicas (through identity).'),
  // -- dashboard
  DASHBOARD_DIR: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      'Directory of the dashboard build (`manifest.json` and `assets/`, written by `npm run build:dashboard`; `npm start` and the image build it). Default: `apps/dashboard/dist`. Without a manifest the pages (`/`, `/sites/{id}`, `/share/{hash}`) answer 503; the API is unaffected.',
    ),
  WIDGETS_DIR: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      'Directory of the widgets build (`manifest.json` and the bundles, written by `npm run build:widgets`). Default: `apps/widgets/dist`. Without a manifest `/widgets/v1/{type}.js` answers 404 and the gateway logs how to build it.',
    ),
  SHARE_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(600)
    .describe(
      'Requests per minute one client address may make to public dashboards (`/share/{hash}` and `/api/v1/share/…`), per gateway replica; a minute’s worth may come at once (a page loading its panels). Past it 429 `rate_limited` with Retry-After. The address honours `TRUSTED_PROXIES`. 0: no limit.',
    ),
  EXPORT_RATE_LIMIT_PER_HOUR: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(30)
    .describe(
      'Exports (`GET /sites/{id}/export`) per hour one API key (or dashboard session) may start, per gateway replica; an hour’s worth may come at once, then one every 60/N minutes. Past it 429 `rate_limited` with Retry-After. 0: no limit.',
    ),
  QUERY_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(67_108_864)
    .describe(
      'Memory for cached report answers (`POST /query`, `GET /props`, the share routes) per gateway replica, 64 MiB by default; least recently used answers go first. Identical queries arriving together run once. 0: no cache and no single flight.',
    ),
  QUERY_CACHE_LIVE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(10_000)
    .describe('How long an answer whose window reaches today (or realtime) is reused. 0: not kept (identical queries arriving together still run once).'),
  QUERY_CACHE_CLOSED_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(3_600_000)
    .describe(
      'How long an answer whose window ended before today (in the site’s time zone, over an hour ago) is reused; an import into the site, a change of the site or its settings drop it sooner, on every replica.',
    ),
  WIDGET_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .refine((ms) => ms === 0 || ms >= 15_000, '0 or 15000 to 60000')
    .default(60_000)
    .describe(
      "How long a widget's data (`GET /api/v1/widgets/{type}`) is reused per site, type and window on each gateway replica, 15 to 60 s; the viewers asking meanwhile share one answer (one load at a time), so a widget costs the events store at most two queries per TTL whatever its audience. 0: not reused (the widget-crowd bench's baseline).",
    ),
  WIDGET_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(600)
    .describe(
      'Widget data requests per minute one client address may make (`GET /api/v1/widgets/{type}`), per gateway replica; a minute’s worth may come at once. Past it 429 `rate_limited` with Retry-After. The address honours `TRUSTED_PROXIES`. 0: no limit.',
    ),
  WIDGET_KEY_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(60)
    .describe(
      "Widget answers per minute one widget key may have computed (requests its site's cached answers do not cover: another type or window, an expired answer), per gateway replica. Past it 429 `rate_limited` with Retry-After; cached answers are never refused. 0: no limit.",
    ),
  // -- sites
  HOBBY_ZONES: csv
    .default(['github.io', 'gitlab.io', 'pages.dev', 'netlify.app', 'vercel.app', 'neocities.org'])
    .describe('Comma-separated host suffixes whose subdomains qualify for the free (hobby) tier.'),
  DEFAULT_TIMEZONE: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'not an IANA time zone')
    .optional()
    .describe('Time zone of a new site when the request names none (IANA name). Default: the server’s own time zone.'),
  // -- tracker
  EVENT_SHARDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(8)
    .describe(
      'Shards of collected events (`events.collected.<shard>`, one per visitor; ingest replicas split them). Fixed for a deployment: changing it needs a drain (stop gateways, let ingest empty `EVENTS_WQ`, restart all with the new count).',
    ),
  SCRIPT_PURGE_WEBHOOK_URL: url.optional().describe('Called (POST `{site_id}`) when a site’s tracker script changes, e.g. to purge a CDN. Unset: no call.'),
  // -- gRPC
  GRPC_HOST: z.string().default('0.0.0.0').describe('Interface a single service (`--target=<service>`) listens on for gRPC.'),
  GRPC_PORT: port.default(50051).describe('gRPC port of a single service (`--target=<service>`).'),
  IDENTITY_GRPC_ADDR: grpcAddress
    .optional()
    .describe(
      'host:port of the identity service (gateway in `--target=gateway`). `dns:///name:port` spreads calls over every address the name resolves to (a headless Service: one per ready pod).',
    ),
  SITES_GRPC_ADDR: grpcAddress.optional().describe('host:port of the sites service.'),
  SETTINGS_GRPC_ADDR: grpcAddress.optional().describe('host:port of the settings service.'),
  SCRIPT_BUILDER_GRPC_ADDR: grpcAddress.optional().describe('host:port of the script-builder service.'),
  QUERY_GRPC_ADDR: grpcAddress.optional().describe('host:port of the query service.'),
  INGEST_GRPC_ADDR: grpcAddress.optional().describe('host:port of the ingest service.'),
  GRPC_DEADLINE_MS: positiveInt.default(10_000).describe('Deadline of a gateway → service call.'),
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(30_000)
    .describe(
      'A service closes each client connection after about this long (running calls finish first), and a client re-resolves a `dns:///` address at most this often: a replica added behind the name gets calls within about twice this. 0: never.',
    ),
  GRPC_KEEPALIVE_TIME_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(30_000)
    .describe(
      'A client pings each service connection this often while calls run, to find a dead one. Long streams (exports, import uploads) ride a channel without pings: grpc-js drops calls still running on a connection closed for its age when a ping follows. 0: never.',
    ),
  // -- ingestion
  INGEST_REPLICAS: positiveInt
    .max(1024)
    .default(1)
    .describe('Number of ingest replicas sharing the event shards (each owns shards s with s % INGEST_REPLICAS == its index). Must not exceed `EVENT_SHARDS`.'),
  INGEST_REPLICA_INDEX: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe("This ingest replica's index (0-based). Unset: the ordinal at the end of `POD_NAME` (a StatefulSet pod), else 0."),
  POD_NAME: z.string().max(253).optional().describe('Kubernetes pod name (set by the Helm chart); ingest reads its StatefulSet ordinal from it.'),
  INGEST_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(0)
    .describe(
      'Worker threads that run the ingest pipeline (parse, enrich, sessionize, encode rows), each for its share of the event shards; the main thread keeps the bus, the stores and the acks. 0: the pipeline runs on the main thread. Each worker holds its own live visits, caches and geo mapping (the mapping ~15 MB, packed); the DB-IP files’ data sections (30 MB) are read once and shared, their search trees read from disk as lookups need them.',
    ),
  INGEST_BATCH_ROWS: positiveInt
    .max(1_000_000)
    .default(5_000)
    .describe(
      "Ingest inserts a batch once this many rows wait (events, session versions, drop counters). With INGEST_WORKERS=N, a worker's batch may go at 1/N of it while the engine is free and the traffic live (each worker sees 1/N of the events); a backlog's (messages that waited in the stream longer than INGEST_BATCH_MAX_DELAY_MS) wait for the whole size.",
    ),
  INGEST_BATCH_MAX_DELAY_MS: positiveInt.max(60_000).default(1_000).describe('…or once the oldest waiting row is this old (ms).'),
  INGEST_ACK_WAIT_MS: positiveInt
    .min(5_000)
    .max(600_000)
    .default(60_000)
    .describe(
      'An event ingest received but has not stored (a crashed or stuck replica) is delivered again after this long (ms). Longer than a batch takes to insert.',
    ),
  // -- lifecycle and observability
  SHUTDOWN_GRACE_MS: positiveInt.default(10_000).describe('On SIGTERM, how long in-flight requests may take before the process exits anyway.'),
  IDLE_GC_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(10_000)
    .describe(
      'Once the process has been quiet this long after work (an import, collected events, reports), it collects its JavaScript heap, compacting it, and hands the free memory back to the system, instead of waiting for V8 to (which took from 10 s to over a minute and kept sparse pages). Once per quiet period; a pause of a fraction of a second while nothing waits. 0: V8’s own schedule only.',
    ),
  HEALTH_PROBE_INTERVAL_MS: positiveInt.default(5_000).describe('How often a service re-checks its stores for its gRPC health status.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level (JSON logs on stdout).'),
  METRICS_PORT: port
    .default(9464)
    .describe(
      'Port of the Prometheus `/metrics` endpoint of this process (every target; one endpoint for all services in single-process mode). `0` turns it off.',
    ),
  METRICS_HOST: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Interface of the `/metrics` endpoint. Default: `127.0.0.1` in single-process mode (`npm start`: only this machine may scrape), `HOST` for a service run alone (`--target=…`, where Prometheus scrapes each pod).',
    ),
  OTEL_TRACES_EXPORTER: z
    .enum(['none', 'console', 'otlp'])
    .optional()
    .describe('Trace exporter: `none` (off), `console`, or `otlp` (HTTP/JSON). Unset: `otlp` when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else `none`.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: url
    .optional()
    .describe(
      'OTLP/HTTP endpoint for traces, e.g. `http://otel-collector:4318` (`/v1/traces` is added). Setting it alone turns trace export on; `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` choose the sampling (default: every trace).',
    ),
  OTEL_SERVICE_NAME: z.string().optional().describe('Service name on traces. Default: `sightline-<target>`.'),
});

export type Env = z.infer<typeof ENV_SCHEMA>;
