import { computed, effect, signal } from '@preact/signals';
import type { ApiFailure, SiteInfo, StatsClient } from '../api/client.js';
import { isTransient, pollDelayMs } from '../api/retry.js';
import { localNow, resolvePeriod } from './periods.js';
import { parseState, serializeState, type DashboardState } from './url-state.js';

/**
 * The dashboard's live state: the view (kept in the URL: pushState on a change,
 * popstate restores), the site, the client, and a clock that ticks every 30 s
 * (realtime refresh, "visitors now", the partial bucket) — slower, up to 4 min,
 * while refreshes keep meeting 429/5xx/network failures.
 */
export const REFRESH_MS = 30_000;

export const view = signal<DashboardState>(parseState(location.search));
export const siteInfo = signal<SiteInfo | undefined>(undefined);
export const clock = signal(Date.now());
let statsClient: StatsClient | undefined;
/** a refresh of this tick met a transient failure; ticks in a row that did */
let tickFailed = false;
let failedTicks = 0;

/** A refreshed (polled) request failed: a busy server slows the next ticks down. */
export function reportPollFailure(error: ApiFailure): void {
  if (isTransient(error.status)) tickFailed = true;
}

export function client(): StatsClient {
  if (!statsClient) throw new Error('dashboard: no client');
  return statsClient;
}

/** URL parameters that belong to the page, not to the view (embed, theme). */
function keptParams(): Record<string, string> {
  const params = new URLSearchParams(location.search);
  const keep: Record<string, string> = {};
  for (const key of ['embed', 'theme']) {
    const value = params.get(key);
    if (value !== null) keep[key] = value;
  }
  return keep;
}

export const today = computed(() => localNow(clock.value, siteInfo.value?.timezone ?? 'UTC'));
export const period = computed(() => resolvePeriod(view.value, today.value.date));

export function setView(next: DashboardState): void {
  view.value = next;
  const search = serializeState(next, keptParams());
  if (search !== location.search) history.pushState(null, '', `${location.pathname}${search}`);
}

export function updateView(change: Partial<DashboardState>): void {
  setView({ ...view.value, ...change });
}

export function startDashboard(c: StatsClient): () => void {
  statsClient = c;
  const onPop = () => {
    view.value = parseState(location.search);
  };
  addEventListener('popstate', onPop);
  // no polling from a hidden tab (a crowd of open share pages costs the store nothing); catch up on return
  let timer: ReturnType<typeof setTimeout>;
  const schedule = () => {
    failedTicks = tickFailed ? failedTicks + 1 : 0;
    tickFailed = false;
    timer = setTimeout(tick, pollDelayMs(REFRESH_MS, failedTicks));
  };
  const tick = () => {
    if (!document.hidden) clock.value = Date.now();
    schedule();
  };
  timer = setTimeout(tick, REFRESH_MS);
  const onVisible = () => {
    if (!document.hidden && Date.now() - clock.value >= pollDelayMs(REFRESH_MS, failedTicks)) clock.value = Date.now();
  };
  document.addEventListener('visibilitychange', onVisible);
  // write defaults into the URL once, so a copied link says what it shows
  const stop = effect(() => {
    const search = serializeState(view.value, keptParams());
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}`);
  });
  stop();
  return () => {
    removeEventListener('popstate', onPop);
    document.removeEventListener('visibilitychange', onVisible);
    clearTimeout(timer);
  };
}
