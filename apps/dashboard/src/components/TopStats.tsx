import { comparisonOf, type ComparisonView, formatExact, formatTotal, METRIC_LABELS } from '../format.js';
import { clock, period, updateView, view } from '../state/store.js';
import { realtimeRequest, statsRequest } from '../state/requests.js';
import { GRAPH_METRICS } from '../state/url-state.js';
import { useQuery } from '../state/use-query.js';
import { ErrorNote, ImportedBadge } from './Notes.js';

/**
 * Visitors now (realtime, refreshed every 30 s) and the six totals with their
 * change against the comparison; a stat is a toggle button choosing the graph's metric.
 */
export function TopStats() {
  const state = view.value;
  const resolved = period.value;
  const realtime = state.period === 'realtime';
  const stats = useQuery(statsRequest(state, resolved), realtime ? clock.value : 0);
  const now = useQuery(realtimeRequest(state), clock.value);
  const row = stats.data?.results[0];
  return (
    <section class="top-stats" data-panel="top-stats" data-loading={stats.loading ? 'true' : undefined} aria-label="Top stats">
      <div class="stat stat-now">
        <span class="stat-label">
          <span class="live-dot" aria-hidden="true" />
          Visitors now
        </span>
        <span class="stat-value" title="Unique visitors in the last 30 minutes">
          {now.data ? formatExact('visitors', now.data.results[0]?.metrics['visitors'] ?? 0) : now.error ? '–' : '…'}
        </span>
      </div>
      {GRAPH_METRICS.map((metric) => {
        const change = row ? comparisonOf(metric, row.metrics, row.comparison) : undefined;
        const selected = state.metric === metric;
        return (
          <button key={metric} type="button" class={selected ? 'stat selected' : 'stat'} aria-pressed={selected} onClick={() => updateView({ metric })}>
            <span class="stat-label">{METRIC_LABELS[metric]}</span> <span class="stat-value">{row ? formatTotal(metric, row.metrics) : '…'}</span>{' '}
            {change && <ChangeText change={change} />}
          </button>
        );
      })}
      {stats.error && <ErrorNote error={stats.error} />}
      {stats.data?.has_import && <ImportedBadge />}
    </section>
  );
}

/** The change with its arrow and previous value; one accessible text for the whole (arrows are decoration). */
export function ChangeText({ change, compact = false }: { change: ComparisonView; compact?: boolean }) {
  const tone = change.good === undefined ? '' : change.good ? ' good' : ' bad';
  return (
    <span class={`change-group${compact ? ' compact' : ''}`}>
      <span class={`change change-${change.direction}${tone}`} aria-hidden="true">
        {change.direction === 'up' ? '↑' : change.direction === 'down' ? '↓' : ''}
        {change.text}
      </span>
      {!compact && change.previous && (
        <span class="previous" aria-hidden="true">
          {' '}
          {change.previous}
        </span>
      )}
      <span class="sr-only">, {change.label}</span>
    </span>
  );
}
