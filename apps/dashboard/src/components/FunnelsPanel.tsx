import { useEffect, useState } from 'preact/hooks';
import { funnelReport, listFunnels, type FunnelReportAnswer, type FunnelStepAnswer, type SessionSource } from '../api/funnels.js';
import { formatChange, formatCount, formatDuration } from '../format.js';
import { client, clock, period, view } from '../state/store.js';
import { apiFilters } from '../state/url-state.js';
import { useAsync } from '../state/use-query.js';
import { ErrorNote } from './Notes.js';
import './funnels.css';

/**
 * The Funnels panel: pick one of the site's funnels, see each step's visitors as a bar
 * with the drop-off to the next step, or the same figures as a table. It follows the
 * view's period, filters and compare like every panel. Signed-in dashboards only (the
 * share API has no funnels).
 */
export function FunnelsPanel() {
  const source = client().source;
  return source.kind === 'session' ? <FunnelsOfSite source={source} /> : null;
}

const percent = (value: number | null) => (value === null ? '–' : `${Number.isInteger(value) ? value : value.toFixed(2)}%`);
const seconds = (value: number | null) => (value === null ? '–' : formatDuration(value));

function FunnelsOfSite({ source }: { source: SessionSource }) {
  const funnels = useAsync(`funnels:${source.siteId}`, (signal) => listFunnels(source, signal));
  const [chosen, setChosen] = useState<number | undefined>(undefined);
  const [asTable, setAsTable] = useState(false);
  const list = funnels.data?.funnels ?? [];
  const funnelId = list.some((f) => f.funnel_id === chosen) ? chosen : list[0]?.funnel_id;
  const state = view.value;
  const current = period.value;
  const request = { date_range: current.dateRange, filters: apiFilters(state.filters), ...(current.compare ? { compare: current.compare } : {}) };
  const report = useAsync(
    funnelId === undefined ? null : JSON.stringify([funnelId, request]),
    (signal) => funnelReport(source, funnelId!, request, signal),
    state.period === 'realtime' ? clock.value : 0,
  );
  const loading = funnels.loading || report.loading;
  const [shownLoading, setShownLoading] = useState(true);
  useEffect(() => setShownLoading(loading), [loading]);

  return (
    <section
      class="panel funnels-panel"
      data-panel="funnels"
      data-loading={shownLoading ? 'true' : undefined}
      aria-busy={shownLoading ? 'true' : 'false'}
      aria-labelledby="panel-funnels-title"
    >
      <div class="panel-head">
        <h2 id="panel-funnels-title">Funnels</h2>
        {list.length > 0 && (
          <div class="panel-tools">
            <label for="funnel-pick">Funnel</label>
            <select id="funnel-pick" value={String(funnelId)} onChange={(e) => setChosen(Number((e.currentTarget as HTMLSelectElement).value))}>
              {list.map((f) => (
                <option key={f.funnel_id} value={String(f.funnel_id)}>
                  {f.name}
                </option>
              ))}
            </select>
            <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
              Show as table
            </button>
          </div>
        )}
      </div>
      {funnels.error && <ErrorNote error={funnels.error} />}
      {funnels.data && list.length === 0 && (
        <p class="muted empty">No funnels yet. A funnel is an ordered list of the site’s goals: create one with POST /api/v1/sites/{source.siteId}/funnels.</p>
      )}
      {report.error && <ErrorNote error={report.error} />}
      {report.data && (asTable ? <FunnelTable report={report.data} /> : <FunnelChart report={report.data} />)}
    </section>
  );
}

/** One bar per step (its width: the step's visitors against step 1's), and between steps the drop-off and the median time. */
function FunnelChart({ report }: { report: FunnelReportAnswer }) {
  const first = report.steps[0]?.visitors ?? 0;
  if (first === 0) return <p class="muted empty">Nobody started this funnel in this period.</p>;
  return (
    <ol class="funnel-chart" aria-label={`${report.name}: visitors per step`}>
      {report.steps.map((step) => (
        <li key={step.step} class="funnel-step">
          <div class="funnel-step-head">
            <span class="funnel-step-name">
              {step.step}. {step.name}
            </span>
            <span class="funnel-step-value">
              {formatCount(step.visitors)} visitors · {percent(step.conversion_rate)}
              <StepChange step={step} />
            </span>
          </div>
          <div class="funnel-track" aria-hidden="true">
            <span class="funnel-bar" style={{ width: `${((100 * step.visitors) / first).toFixed(1)}%` }} />
          </div>
          {step.dropoff !== null && (
            <p class="funnel-dropoff">
              <span aria-hidden="true">↓ </span>
              {formatCount(step.dropoff)} dropped off ({percent(step.visitors === 0 ? null : Math.round((10_000 * step.dropoff) / step.visitors) / 100)})
              {step.median_seconds_to_next !== null && <> · median {seconds(step.median_seconds_to_next)} to the next step</>}
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}

/** With compare on: the change of the step's visitors. */
function StepChange({ step }: { step: FunnelStepAnswer }) {
  if (!step.comparison) return null;
  const change = formatChange('visitors', step.comparison.change.visitors);
  const previous = `was ${formatCount(step.comparison.metrics.visitors)}`;
  if (!change) return <span class="previous"> ({previous})</span>;
  return (
    <span class={`change funnel-change${change.good === undefined ? '' : change.good ? ' good' : ' bad'}`}>
      {' '}
      {change.text} <span class="previous">({previous})</span>
    </span>
  );
}

function FunnelTable({ report }: { report: FunnelReportAnswer }) {
  const compared = report.steps.some((s) => s.comparison);
  return (
    <div class="table-scroll">
      <table class="data-table funnel-table">
        <caption class="sr-only">{report.name}: each step’s figures</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col" class="num">
              Visitors
            </th>
            {compared && (
              <th scope="col" class="num">
                Change
              </th>
            )}
            <th scope="col" class="num">
              Conversion
            </th>
            <th scope="col" class="num">
              From previous step
            </th>
            <th scope="col" class="num">
              Drop-off
            </th>
            <th scope="col" class="num">
              Median time to next
            </th>
          </tr>
        </thead>
        <tbody>
          {report.steps.map((step) => (
            <tr key={step.step}>
              <th scope="row">
                {step.step}. {step.name}
              </th>
              <td class="num">{step.visitors}</td>
              {compared && <td class="num">{formatChange('visitors', step.comparison?.change.visitors)?.text ?? '–'}</td>}
              <td class="num">{percent(step.conversion_rate)}</td>
              <td class="num">{percent(step.step_conversion_rate)}</td>
              <td class="num">{step.dropoff === null ? '–' : step.dropoff}</td>
              <td class="num">{seconds(step.median_seconds_to_next)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
