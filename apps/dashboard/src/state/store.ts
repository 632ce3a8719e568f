import { computed, effect, signal } from '@preact/signals';
import type { SiteInfo, StatsClient } from '../api/client.js';
import { localNow, resolvePeriod } from './periods.js';
import { parseState, serializeState, type DashboardState } from './url-state.js';

/**
 * The dashboard's live state: the view (kept in the URL: pushState on a change,
 * popstate restores), the site, the client, and a clock that ticks every 30 s
 * (realtime refresh, "visitors now", the partial bucket).
 */
export const REFRESH_MS = 30_000;

export const view = signal<DashboardState>(parseState(location.search));
export const siteInfo = signal<SiteInfo | undefined>(undefined);
export const clock = signal(Date.now());
let statsClient: StatsClient | undefined;

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
  const tick = () => {
    if (!document.hidden) clock.value = Date.now();
  };
  const timer = setInterval(tick, REFRESH_MS);
  const onVisible = () => {
    if (!document.hidden && Date.now() - clock.value >= REFRESH_MS) clock.value = Date.now();
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
    clearInterval(timer);
  };
}
