import { lazy, Suspense } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PanelSpec, TabSpec } from '../catalogue.js';
import { comparisonOf, formatExact, formatMetric, METRIC_LABELS, referrerHref } from '../format.js';
import { breakdownRequest, withCompare } from '../state/requests.js';
import { client, clock, period, siteInfo, view } from '../state/store.js';
import { useAsync, useQuery } from '../state/use-query.js';
import { DetailsDialog } from './DetailsDialog.js';
import { ErrorNote, ImportedBadge } from './Notes.js';
import { ChangeText } from './TopStats.js';
import { Flag } from './Flag.js';
import { applyRow, rowFilter, shownRows, type ShownRow } from './rows.js';

const WorldMap = lazy(() => import('../map/WorldMap.js').then((m) => m.WorldMap));
export const PANEL_ROWS = 9;

/** A panel: tabs over breakdowns, the top rows (a click filters the dashboard), a details dialog. */
export function Panel({ spec }: { spec: PanelSpec }) {
  const [tabIndex, setTabIndex] = useState(0);
  // data-loading sits on the panel's root (contract "Test hooks"); the tab's content reports it
  const [loading, setLoading] = useState(true);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const tab = spec.tabs[tabIndex]!;
  const onKey = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (tabIndex + step + spec.tabs.length) % spec.tabs.length;
    setTabIndex(next);
    tabs.current[next]?.focus();
  };
  return (
    <section
      class="panel"
      data-panel={spec.id}
      data-loading={loading ? 'true' : undefined}
      aria-busy={loading ? 'true' : 'false'}
      aria-labelledby={`panel-${spec.id}-title`}
    >
      <div class="panel-head">
        <h2 id={`panel-${spec.id}-title`}>{spec.title}</h2>
        <div class="tabs" role="tablist" aria-label={`${spec.title} breakdowns`} onKeyDown={onKey}>
          {spec.tabs.map((t, i) => (
            <button
              key={t.id}
              ref={(el) => {
                tabs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${spec.id}-${t.id}`}
              aria-selected={i === tabIndex}
              aria-controls={`tabpanel-${spec.id}`}
              tabIndex={i === tabIndex ? 0 : -1}
              onClick={() => setTabIndex(i)}
            >
              {t.label}
            </button>
          ))}
        </div>
      </div>
      <div role="tabpanel" id={`tabpanel-${spec.id}`} aria-labelledby={`tab-${spec.id}-${tab.id}`}>
        {tab.props ? (
          <PropsTab key={tab.id} tab={tab} reportLoading={setLoading} />
        ) : (
          <Breakdown key={tab.id} tab={tab} panelTitle={spec.title} reportLoading={setLoading} />
        )}
      </div>
    </section>
  );
}

type ReportLoading = (loading: boolean) => void;

function Breakdown({
  tab,
  panelTitle,
  dimensionOverride,
  reportLoading,
}: {
  tab: TabSpec;
  panelTitle: string;
  dimensionOverride?: string;
  reportLoading: ReportLoading;
}) {
  const state = view.value;
  const dimension = dimensionOverride ?? tab.dimension(state.filters);
  const answer = useQuery(
    withCompare(breakdownRequest(state, period.value, dimension, tab.metrics, tab.map ? 300 : PANEL_ROWS), period.value),
    state.period === 'realtime' ? clock.value : 0,
  );
  useEffect(() => reportLoading(answer.loading), [answer.loading]);
  const [details, setDetails] = useState(false);
  const [mapAsTable, setMapAsTable] = useState(false);
  const rows = answer.data ? shownRows(answer.data.results, dimension, tab.filterField(state.filters)) : [];
  return (
    <div class="breakdown">
      {answer.error && <ErrorNote error={answer.error} />}
      {answer.data?.has_import && <ImportedBadge />}
      {tab.map && answer.data && rows.length > 0 && (
        <button type="button" class="map-table-toggle" aria-pressed={mapAsTable} onClick={() => setMapAsTable(!mapAsTable)}>
          Show map as table
        </button>
      )}
      {tab.map && answer.data && !mapAsTable && (
        <Suspense fallback={<p class="muted">Loading map…</p>}>
          <WorldMap rows={rows} onPick={(row) => applyRow(tab, state, row)} />
        </Suspense>
      )}
      {answer.data && rows.length === 0 && <p class="muted empty">No data for this period.</p>}
      {rows.length > 0 && <RowList tab={tab} rows={tab.map && !mapAsTable ? rows.slice(0, PANEL_ROWS) : rows} column={tab.column(state.filters)} />}
      {answer.data && rows.length > 0 && (
        <button type="button" class="details-button" onClick={() => setDetails(true)}>
          Details
          <span class="sr-only">
            {' '}
            of {panelTitle}: {tab.label}
          </span>
        </button>
      )}
      {details && <DetailsDialog tab={tab} dimension={dimension} title={`${panelTitle}: ${tab.label}`} onClose={() => setDetails(false)} />}
    </div>
  );
}

/**
 * The rows with a bar proportional to the first metric; the value is always plain
 * text. With compare on, a muted column before the value gives each row's change.
 */
export function RowList({ tab, rows, column }: { tab: TabSpec; rows: ShownRow[]; column: string }) {
  const state = view.value;
  const metric = tab.metrics[0]!;
  const max = Math.max(1, ...rows.map((r) => r.metrics[metric] ?? 0));
  const compared = rows.some((r) => r.comparison);
  return (
    <table class="rows">
      <thead>
        <tr>
          <th scope="col">{column}</th>
          {compared && (
            <th scope="col" class="change-col">
              <span aria-hidden="true">Change</span>
              <span class="sr-only">Change against the comparison period</span>
            </th>
          )}
          <th scope="col" class="num">
            {METRIC_LABELS[metric]}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const filter = rowFilter(tab, state.filters, row, siteInfo.value);
          const href = tab.links ? referrerHref(row.value) : undefined;
          const share = ((row.metrics[metric] ?? 0) / max) * 100;
          return (
            <tr key={row.value}>
              <td class="row-label">
                <span class="bar" aria-hidden="true" style={{ width: `${share.toFixed(1)}%` }} />
                <Flag flag={row.flag} />
                {filter ? (
                  <button type="button" class="row-button" title={`Filter by ${row.label}`} onClick={() => applyRow(tab, state, row)}>
                    {row.label}
                  </button>
                ) : (
                  <span class="row-text">{row.label}</span>
                )}
                {href && (
                  <a class="out-link" href={href} target="_blank" rel="noopener noreferrer nofollow" aria-label={`Open ${row.value}`}>
                    ↗
                  </a>
                )}
              </td>
              {compared && <td class="change-col">{row.comparison && <RowChange metric={metric} row={row} />}</td>}
              <td class="num" title={formatExact(metric, row.metrics[metric])}>
                {formatMetric(metric, row.metrics[metric])}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RowChange({ metric, row }: { metric: string; row: ShownRow }) {
  const change = comparisonOf(metric, row.metrics, row.comparison);
  return change ? <ChangeText change={change} compact /> : null;
}

/**
 * Custom properties: with an `event is X` filter, pick one of the site's property
 * keys (GET /props) and break it down; without one, list the custom events to pick.
 */
function PropsTab({ tab, reportLoading }: { tab: TabSpec; reportLoading: ReportLoading }) {
  const state = view.value;
  const event = state.filters.find((f) => f.field === 'event' && f.operator === 'is');
  const resolved = period.value;
  const keys = useAsync(event ? `props ${JSON.stringify(resolved.dateRange)}` : null, (signal) => client().props(resolved.dateRange, signal));
  const [key, setKey] = useState<string | undefined>();
  useEffect(() => {
    if (event) reportLoading(keys.loading);
  }, [keys.loading, !!event]);
  if (!event) {
    const events = {
      ...tab,
      id: 'events',
      dimension: () => 'event:name',
      filterField: () => 'event' as const,
      column: () => 'Event — pick one to see its properties',
    };
    return <Breakdown tab={events} panelTitle="Goals" reportLoading={reportLoading} />;
  }
  const list = keys.data?.props ?? [];
  const chosen = key && list.some((p) => p.key === key) ? key : list[0]?.key;
  return (
    <div class="props-tab">
      {keys.error && <ErrorNote error={keys.error} />}
      {keys.data && list.length === 0 && <p class="muted empty">No custom properties recorded in this period.</p>}
      {list.length > 0 && (
        <label class="inline-label">
          <span>Property of “{event.values[0]}”</span>
          <select value={chosen} onChange={(e) => setKey((e.currentTarget as HTMLSelectElement).value)}>
            {list.map((p) => (
              <option key={p.key} value={p.key}>
                {p.key}
              </option>
            ))}
          </select>
        </label>
      )}
      {chosen !== undefined && (
        <Breakdown
          key={chosen}
          tab={{ ...tab, column: () => chosen }}
          panelTitle="Goals"
          dimensionOverride={`event:props:${chosen}`}
          reportLoading={reportLoading}
        />
      )}
    </div>
  );
}
