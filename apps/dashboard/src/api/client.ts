/**
 * The one typed client of the dashboard: the query API over a data source, either
 * the signed-in session (cookie + X-CSRF-Token, routes of /api/v1) or a share hash
 * (the public, read-only /api/v1/share/{hash}/… routes). Every failure becomes an
 * `ApiFailure` carrying the API's error object, so each panel shows its own.
 */
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
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

const TIMEOUT_MS = 30_000;
/** Fired on window when a session-authorised call answers 401: the page asks to sign in again. */
export const SESSION_ENDED = 'sightline:session-ended';

async function call<T>(method: string, path: string, options: { body?: unknown; csrfToken?: string; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.csrfToken) headers['x-csrf-token'] = options.csrfToken;
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', signal, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
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
    if (this.source.kind === 'share') return call('POST', `/api/v1/share/${enc(this.source.hash)}/query`, { body: request, ...(signal ? { signal } : {}) });
    return call('POST', '/api/v1/query', { body: { site_id: this.source.siteId, ...request }, csrfToken: this.source.csrfToken, ...(signal ? { signal } : {}) });
  }

  props(dateRange: DateRange, signal?: AbortSignal): Promise<PropsAnswer> {
    const range = enc(rangeParam(dateRange));
    if (this.source.kind === 'share') return call('GET', `/api/v1/share/${enc(this.source.hash)}/props?date_range=${range}`, signal ? { signal } : {});
    return call('GET', `/api/v1/props?site_id=${this.source.siteId}&date_range=${range}`, { csrfToken: this.source.csrfToken, ...(signal ? { signal } : {}) });
  }

  async site(): Promise<SiteInfo> {
    if (this.source.kind === 'share') return call<SiteInfo>('GET', `/api/v1/share/${enc(this.source.hash)}`);
    const { siteId, csrfToken } = this.source;
    const [site, goals] = await Promise.all([
      call<SiteEntry>('GET', `/api/v1/sites/${siteId}`, { csrfToken }),
      call<{ goals: SiteInfo['goals'] }>('GET', `/api/v1/sites/${siteId}/goals`, { csrfToken }).catch(() => ({ goals: [] })),
    ]);
    return { domain: site.name.replace(/^https?:\/\//, ''), timezone: site.timezone, goals: goals.goals };
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
