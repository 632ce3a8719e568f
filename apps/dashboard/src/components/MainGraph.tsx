import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { formatExact, formatMetric, METRIC_KIND, METRIC_LABELS } from '../format.js';
import { currentBucket } from '../state/periods.js';
import { seriesRequest } from '../state/requests.js';
import { clock, period, siteInfo, today, updateView, view } from '../state/store.js';
import type { Annotation } from '../api/annotations.js';
import { useAnnotations } from '../state/use-annotations.js';
import { AnnotationList } from './AnnotationList.js';
import { AnnotationMarkers } from './AnnotationMarkers.js';
import type { Interval } from '../state/url-state.js';
import { useQuery } from '../state/use-query.js';
import { ErrorNote, ImportedBadge } from './Notes.js';

const INTERVAL_LABELS: Record<Interval, string> = { minute: 'Minute', hour: 'Hour', day: 'Day', week: 'Week', month: 'Month' };

export interface GraphData {
  labels: string[];
  values: (number | null)[];
  previous: (number | null)[] | undefined;
  /** index of the still-filling bucket, -1 if none */
  partial: number;
}

/** The time series of the selected metric, the comparison overlaid, the partial bucket dashed; or as a table. */
export function MainGraph() {
  const state = view.value;
  const resolved = period.value;
  const realtime = state.period === 'realtime';
  const series = useQuery(seriesRequest(state, resolved), realtime ? clock.value : 0);
  const [asTable, setAsTable] = useState(false);
  const annotations = useAnnotations(resolved.start, resolved.end);
  const dimension = `time:${resolved.interval}`;
  const nowMinute = today.value.minute;
  // the same data object while nothing it shows changed, so the chart is not rebuilt on every render
  const data = useMemo((): GraphData | undefined => {
    if (!series.data) return undefined;
    const labels = series.data.results.map((row) => row.dimensions?.[dimension] ?? '');
    const partial = currentBucket(labels, nowMinute, resolved.includesToday);
    const future = (i: number) => partial >= 0 && i > partial;
    return {
      labels,
      values: series.data.results.map((row, i) => (future(i) ? null : (row.metrics[state.metric] ?? null))),
      previous: resolved.compare ? series.data.results.map((row) => row.comparison?.metrics[state.metric] ?? null) : undefined,
      partial,
    };
  }, [series.data, nowMinute, resolved.includesToday, !!resolved.compare, state.metric, dimension]);
  return (
    <section class="panel graph-panel" data-panel="graph" data-loading={series.loading ? 'true' : undefined} aria-labelledby="graph-title">
      <div class="panel-head">
        <h2 id="graph-title">{METRIC_LABELS[state.metric]}</h2>
        <div class="panel-tools">
          {series.data?.has_import && <ImportedBadge />}
          <label>
            <span>Interval</span>
            <select value={resolved.interval} onChange={(e) => updateView({ interval: (e.currentTarget as HTMLSelectElement).value as Interval })}>
              {resolved.intervals.map((interval) => (
                <option key={interval} value={interval}>
                  {INTERVAL_LABELS[interval]}
                </option>
              ))}
            </select>
          </label>
          <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
            Show as table
          </button>
        </div>
      </div>
      {series.error && <ErrorNote error={series.error} />}
      {data && (asTable ? <SeriesTable data={data} metric={state.metric} /> : <Chart data={data} metric={state.metric} notes={annotations.notes} />)}
      <AnnotationList notes={annotations.notes} error={annotations.error} end={resolved.end} />
    </section>
  );
}

function SeriesTable({ data, metric }: { data: GraphData; metric: string }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={`${METRIC_LABELS[metric]} per bucket (scrollable)`}>
      <table class="data-table">
        <caption class="sr-only">{METRIC_LABELS[metric]} per bucket</caption>
        <thead>
          <tr>
            <th scope="col">Bucket</th>
            <th scope="col">{METRIC_LABELS[metric]}</th>
            {data.previous && <th scope="col">Comparison</th>}
          </tr>
        </thead>
        <tbody>
          {data.labels.map((label, i) => (
            <tr key={label}>
              <th scope="row">
                {label}
                {i === data.partial ? ' (partial)' : ''}
              </th>
              <td>{formatExact(metric, data.values[i])}</td>
              {data.previous && <td>{formatExact(metric, data.previous[i])}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function shortLabel(label: string | undefined): string {
  if (!label) return '';
  return label.length > 10 ? label.slice(11, 16) : label.slice(5);
}

function Chart({ data, metric, notes }: { data: GraphData; metric: string; notes: readonly Annotation[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [plot, setPlot] = useState<uPlot | undefined>();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { labels, values, previous, partial } = data;
    const xs = labels.map((_, i) => i);
    // the complete part solid up to the bucket before the partial one; the partial step dashed
    const complete = values.map((v, i) => (partial < 0 || i < partial ? v : null));
    const filling = values.map((v, i) => (partial >= 0 && (i === partial || i === partial - 1) ? v : null));
    const line = cssVar('--accent', '#4f46e5');
    const muted = cssVar('--muted', '#6b7280');
    const grid = cssVar('--grid', '#e5e7eb');
    const text = cssVar('--text', '#111827');
    const counts = METRIC_KIND[metric] === 'count';
    const fmt = (_u: uPlot, v: number | null) => formatExact(metric, v);
    const seriesList: uPlot.Series[] = [
      { label: 'Bucket', value: (_u, i) => labels[i] ?? '' },
      { label: METRIC_LABELS[metric] ?? metric, stroke: line, width: 2, fill: `${line}1a`, value: fmt, points: { show: labels.length < 2 } },
      { label: 'Partial', stroke: line, width: 2, dash: [6, 4], value: fmt, points: { show: false } },
    ];
    const columns: uPlot.AlignedData = [xs, complete, filling];
    if (previous) {
      seriesList.push({ label: 'Comparison', stroke: muted, width: 1.5, dash: [2, 3], value: fmt, points: { show: false } });
      (columns as (number | null)[][]).push(previous);
    }
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 260,
        series: seriesList,
        scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, counts ? Math.max(4, Math.ceil(max * 1.1)) : max > 0 ? max * 1.1 : 1] } },
        axes: [
          { ...axis, values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? shortLabel(labels[s]) : '')) },
          { ...axis, size: 56, values: (_u, splits) => splits.map((s) => (counts && !Number.isInteger(s) ? '' : formatMetric(metric, s))) },
        ],
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
      },
      columns,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: 260 }));
    resize.observe(el);
    setPlot(chart);
    return () => {
      setPlot(undefined);
      resize.disconnect();
      chart.destroy();
    };
  }, [data, metric]);
  return (
    <figure class="chart">
      <div ref={box} class="chart-box" role="img" aria-label={`${METRIC_LABELS[metric]} over time; use "Show as table" for the values`} />
      {plot && <AnnotationMarkers plot={plot} notes={notes} labels={data.labels} timezone={siteInfo.value?.timezone ?? 'UTC'} />}
      {data.partial >= 0 && <figcaption class="chart-note">The dashed segment is the current, still incomplete period.</figcaption>}
    </figure>
  );
}
