import type { FastifyInstance } from 'fastify';
import type { Bus } from '@sightline/bus';
import type { Logger } from '@sightline/telemetry';
import type { BudgetLimits } from './budgets/usage-meter.js';
import type { QueryAnswerCacheOptions } from './caches/query-answer-cache.js';
import type { HealthRouteOptions } from './routes/health.js';
import type { ServiceClient } from './services/service-clients.js';

export interface GatewayOptions {
  log: Logger;
  publicUrl: string;
  version: string;
  writesEnabled: boolean;
  bodyLimitBytes: number;
  /** IMPORT_MAX_BYTES: the largest import upload (streamed, never held whole) */
  importMaxBytes: number;
  trustedProxies: string[];
  services: readonly ServiceClient[];
  ownStores: HealthRouteOptions['ownStores'];
  grpcDeadlineMs: number;
  /** carries key revocations to this replica's cache, and collected events to ingest */
  bus: Bus;
  /** EVENT_SHARDS (default 8): collected events go to `events.collected.<shard>` */
  eventShards?: number;
  keyCacheTtlMs: number;
  /** plan TTL of the report context cache (POST /query, GET /props), and how old keys, reach and plans may be while identity or sites is unavailable; default 5 s / 60 s */
  reportCache?: { ttlMs: number; staleMs: number };
  budgets: BudgetLimits;
  usageSyncIntervalMs: number;
  /** the terms of service accepted at registration: TERMS_URL (unset: the bundled page) and TERMS_VERSION */
  terms: { externalUrl?: string; url: string; version: string };
  /** answers of every query route (key, session, share): QUERY_CACHE_*; default 64 MiB, 10 s live, 1 h closed */
  queryCache?: Omit<QueryAnswerCacheOptions, 'now'>;
  /** SHARE_RATE_LIMIT_PER_MINUTE: share API and page requests per client address; 0 = no limit (default 600) */
  shareRateLimitPerMinute?: number;
  /** EXPORT_RATE_LIMIT_PER_HOUR: exports one key or session may start per hour; 0 = no limit (default 30) */
  exportRateLimitPerHour?: number;
  /** the embeddable widgets' data: WIDGET_CACHE_TTL_MS, WIDGET_RATE_LIMIT_PER_MINUTE, WIDGET_KEY_RATE_LIMIT_PER_MINUTE (default 60 s, 600, 60) */
  widgets?: { cacheTtlMs: number; rateLimitPerMinute: number; keyRateLimitPerMinute: number };
  /** WIDGETS_DIR: the widgets build (manifest.json + bundles); without a manifest /widgets/v1/*.js answer 404 */
  widgetsDir?: string;
  /** DASHBOARD_DIR: the dashboard build (manifest.json + assets/); without a manifest the pages answer 503 */
  dashboardDir?: string;
  /** extra route plugins (used by tests to exercise edge behaviour on routes of their own) */
  extraRoutes?: Array<(app: FastifyInstance) => Promise<void>>;
}
