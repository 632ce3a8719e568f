import { strToU8, zipSync } from 'fflate';
import type { QueryRow, StatsClient } from './api/client.js';
import { PANELS } from './catalogue.js';
import { buildCsv, csvFileName } from './csv.js';
import { annotationRows, ANNOTATION_CSV_HEADER } from './annotation-export.js';
import { listAnnotations } from './api/annotations.js';
import type { ResolvedPeriod } from './state/periods.js';
import { breakdownRequest, seriesRequest, statsRequest } from './state/requests.js';
import { GRAPH_METRICS, type DashboardState } from './state/url-state.js';

/**
 * The CSV export of the current view: top stats, the graph's series (every metric),
 * and every tab of every panel (up to 1000 rows each), one CSV per table, zipped
 * with fflate. Runs the same requests as the page.
 */
const EXPORT_LIMIT = 1000;

export async function buildExport(
  client: StatsClient,
  state: DashboardState,
  resolved: ResolvedPeriod,
  domain: string,
  timezone = 'UTC',
): Promise<{ name: string; zip: Uint8Array }> {
  const files: Record<string, Uint8Array> = {};
  const add = (name: string, header: string[], rows: (string | number | null | undefined)[][]) => {
    files[csvFileName(name)] = strToU8(buildCsv(header, rows));
  };
  const compare = !!resolved.compare;

  const stats = await client.query(statsRequest(state, resolved));
  const totals = stats.results[0];
  add(
    'top_stats',
    ['metric', 'value', ...(compare ? ['comparison', 'change'] : [])],
    GRAPH_METRICS.map((m) => [m, totals?.metrics[m], ...(compare ? [totals?.comparison?.metrics[m], totals?.comparison?.change[m]] : [])]),
  );

  const series = await client.query({ ...seriesRequest(state, resolved), metrics: [...GRAPH_METRICS] });
  const timeDim = `time:${resolved.interval}`;
  add(
    `graph_${resolved.interval}`,
    [timeDim, ...GRAPH_METRICS],
    series.results.map((row) => [row.dimensions?.[timeDim], ...GRAPH_METRICS.map((m) => row.metrics[m])]),
  );

  const breakdowns: { name: string; dimension: string; metrics: string[]; extra?: { field: string; operator: string; values: string[] }[] }[] = [];
  for (const panel of PANELS) {
    for (const tab of panel.tabs) {
      if (tab.map || tab.props) continue;
      breakdowns.push({ name: `${panel.id}_${tab.id}`, dimension: tab.dimension(state.filters), metrics: tab.metrics });
    }
  }
  const event = state.filters.find((f) => f.field === 'event' && f.operator === 'is');
  if (event) {
    const props = await client.props(resolved.dateRange);
    for (const p of props.props.slice(0, 50))
      breakdowns.push({ name: `goals_props_${p.key}`, dimension: `event:props:${p.key}`, metrics: ['visitors', 'events'] });
  }
  const answers = await Promise.all(breakdowns.map((b) => client.query(breakdownRequest(state, resolved, b.dimension, b.metrics, EXPORT_LIMIT))));
  answers.forEach((answer, i) => {
    const b = breakdowns[i]!;
    const geo = answer.results.some((row: QueryRow) => row.labels);
    add(
      b.name,
      [b.dimension, ...(geo ? ['name'] : []), ...b.metrics],
      answer.results.map((row) => [row.dimensions?.[b.dimension], ...(geo ? [row.labels?.[b.dimension]] : []), ...b.metrics.map((m) => row.metrics[m])]),
    );
  });

  add('annotations', ANNOTATION_CSV_HEADER, annotationRows(await listAnnotations(client.source, resolved.start, resolved.end), timezone));

  const range = state.period === 'realtime' ? 'realtime' : `${resolved.start}_${resolved.end}`;
  return { name: `${domain.replace(/[^a-z0-9.-]+/gi, '_')}_${range}.zip`, zip: zipSync(files) };
}
