/**
 * The one typed client of the dashboard: the query API over a data source, either
 * the signed-in session (cookie + X-CSRF-Token, routes of /api/v1) or a share hash
 * (the public, read-only /api/v1/share/{hash}/… routes). Every failure becomes an
 * `ApiFailure` carrying the API's error object, so each panel shows its own.
 * Stats reads answered 429/503 are tried once more after Retry-After (≤ 10 s).
 */
import { retryDelayMs } from './retry.js';

export type DataSource = { kind: 'session'; siteId: number; csrfToken: string } | { kind: 'share'; hash: string };

export type DateRange = string | [string, string];

export interface ApiFilter {
  field: string;
  operator: string;
  values: string[];
}

export interface QueryRequest {
  metrics: string[];
  date_range: DateRange;
  dimensions?: string[];
  filters?: ApiFilter[];
  compare?: DateRange;
  limit?: number;
  offset?: number;
}

export type MetricValues = Record<string, number | null>;

export interface QueryRow {
  dimensions?: Record<string, string>;
  labels?: Record<string, string>;
  metrics: MetricValues;
  comparison?: { metrics: MetricValues; change: MetricValues };
}

export interface QueryAnswer {
  results: QueryRow[];
  meta?: { total: number; limit: number; offset: number; has_more: boolean };
  has_import: boolean;
  query: { site_id?: number; metrics: string[]; dimensions?: string[]; date_range: string[]; compare?: string[] };
}

export interface PropsAnswer {
  props: { key: string; events: number }[];
  date_range: string[];
}

export interface SiteInfo {
  /** the site's name (origin) or the share's domain */
  domain: string;
  timezone: string;
  goals: { display_name: string; event_name?: string | null; page_path?: string | null }[];
  /** the signed-in account's role on the site (absent on a shared dashboard) */
  role?: string;
}

export interface SiteEntry {
  site_id: number;
  name: string;
  timezone: string;
  role?: string;
}

export interface Session {
  email: string;
  csrf_token: string;
  expires_at: string;
  created?: boolean;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly request_id: string | undefined,
    /** the answer's Retry-After header (429/503) */
    readonly retryAfter?: string | null,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

const TIMEOUT_MS = 30_000;
/** Fired on window when a session-authorised call answers 401: the page asks to sign in again. */
export const SESSION_ENDED = 'sightline:session-ended';

interface CallOptions {
  body?: unknown;
  csrfToken?: string;
  signal?: AbortSignal;
  /** a read: try once more after a 429/503's Retry-After (never for sign-in: its limits are the point) */
  retry?: boolean;
}

/** Resolves after `ms`, or rejects at once when the signal aborts (the panel moved on). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  if (!options.retry) return callOnce<T>(method, path, options);
  try {
    return await callOnce<T>(method, path, options);
  } catch (error) {
    const wait = error instanceof ApiFailure ? retryDelayMs(error.status, error.retryAfter ?? null, Date.now(), Math.random()) : undefined;
    if (wait === undefined) throw error;
    await sleep(wait, options.signal);
    return callOnce<T>(method, path, options);
  }
}

async function callOnce<T>(method: string, path: string, options: CallOptions): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.csrfToken) headers['x-csrf-token'] = options.csrfToken;
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      signal,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiFailure(0, 'network_error', timeout.aborted ? 'The server did not answer in time.' : 'The server could not be reached.', undefined);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    // a session call refused: the session expired or was revoked (sign out everywhere)
    if (response.status === 401 && options.csrfToken) dispatchEvent(new Event(SESSION_ENDED));
    const error = (body ?? {}) as { code?: unknown; error?: unknown; request_id?: unknown };
    throw new ApiFailure(
      response.status,
      typeof error.code === 'string' ? error.code : 'http_error',
      typeof error.error === 'string' ? error.error : `The server answered ${response.status}.`,
      typeof error.request_id === 'string' ? error.request_id : (response.headers.get('x-request-id') ?? undefined),
      response.headers.get('retry-after'),
    );
  }
  return body as T;
}

const enc = encodeURIComponent;
const rangeParam = (range: DateRange) => (Array.isArray(range) ? range.join(',') : range);

/** Stats reads over one data source. */
export class StatsClient {
  constructor(readonly source: DataSource) {}

  query(request: QueryRequest, signal?: AbortSignal): Promise<QueryAnswer> {
    if (this.source.kind === 'share')
      return call('POST', `/api/v1/share/${enc(this.source.hash)}/query`, { body: request, retry: true, ...(signal ? { signal } : {}) });
    return call('POST', '/api/v1/query', {
      body: { site_id: this.source.siteId, ...request },
      csrfToken: this.source.csrfToken,
      retry: true,
      ...(signal ? { signal } : {}),
    });
  }

  props(dateRange: DateRange, signal?: AbortSignal): Promise<PropsAnswer> {
    const range = enc(rangeParam(dateRange));
    if (this.source.kind === 'share')
      return call('GET', `/api/v1/share/${enc(this.source.hash)}/props?date_range=${range}`, { retry: true, ...(signal ? { signal } : {}) });
    return call('GET', `/api/v1/props?site_id=${this.source.siteId}&date_range=${range}`, {
      csrfToken: this.source.csrfToken,
      retry: true,
      ...(signal ? { signal } : {}),
    });
  }

  async site(): Promise<SiteInfo> {
    if (this.source.kind === 'share') return call<SiteInfo>('GET', `/api/v1/share/${enc(this.source.hash)}`, { retry: true });
    const { siteId, csrfToken } = this.source;
    const [site, goals] = await Promise.all([
      call<SiteEntry>('GET', `/api/v1/sites/${siteId}`, { csrfToken, retry: true }),
      call<{ goals: SiteInfo['goals'] }>('GET', `/api/v1/sites/${siteId}/goals`, { csrfToken, retry: true }).catch(() => ({ goals: [] })),
    ]);
    return { domain: site.name.replace(/^https?:\/\//, ''), timezone: site.timezone, goals: goals.goals, ...(site.role ? { role: site.role } : {}) };
  }
}

/** The browser session routes (contract "Browser session API"). */
export const sessionApi = {
  current: () => call<Session>('GET', '/web/session'),
  sendCode: (email: string) => call<{ sent: boolean; email: string }>('POST', '/api/v1/auth/send-otp', { body: { email } }),
  signIn: (email: string, code: string, acceptTerms: boolean) =>
    call<Session>('POST', '/web/session', { body: { email, code, ...(acceptTerms ? { accept_terms: true } : {}) } }),
  signOut: (csrfToken: string) => call<void>('DELETE', '/web/session', { csrfToken }),
  signOutEverywhere: (csrfToken: string) => call<void>('DELETE', '/web/sessions', { csrfToken }),
  sites: (csrfToken: string) => call<{ sites: SiteEntry[] }>('GET', '/api/v1/sites', { csrfToken }),
};
