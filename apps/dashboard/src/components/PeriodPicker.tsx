import { useEffect, useState } from 'preact/hooks';
import { period, today, updateView, view } from '../state/store.js';
import { addDays, MAX_EXPLICIT_DAYS, PERIOD_LABELS, PERIOD_SHORTCUTS } from '../state/periods.js';
import { clampRangeEnd, PERIODS, type CompareMode, type Period } from '../state/url-state.js';

const COMPARE_LABELS: Record<CompareMode, string> = { off: 'Off', previous: 'Previous period', year: 'Year over year' };
const SHORTCUT_OF = new Map(PERIOD_SHORTCUTS.map(([key, p]) => [p, key]));

/** Period (with a custom range) and comparison pickers: native selects, labelled. */
export function PeriodPicker() {
  const state = view.value;
  const resolved = period.value;
  const [from, setFrom] = useState(state.from ?? resolved.start);
  const [to, setTo] = useState(state.to ?? resolved.end);
  const [custom, setCustom] = useState(state.period === 'custom');
  useEffect(() => {
    setCustom(state.period === 'custom');
    if (state.period === 'custom') {
      setFrom(state.from ?? resolved.start);
      setTo(state.to ?? resolved.end);
    }
  }, [state.period, state.from, state.to]);

  const choose = (value: Period) => {
    if (value === 'custom') {
      setFrom(resolved.start);
      setTo(resolved.end);
      setCustom(true);
      return;
    }
    setCustom(false);
    updateView({
      period: value,
      interval: undefined,
      from: undefined,
      to: undefined,
      ...(value === 'realtime' && state.compare === 'year' ? { compare: 'previous' as const } : {}),
    });
  };

  return (
    <div class="period-picker">
      <label>
        <span>Period</span>
        <select value={custom ? 'custom' : state.period} onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value as Period)}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {PERIOD_LABELS[p]}
              {SHORTCUT_OF.has(p) ? ` (${SHORTCUT_OF.get(p)!.toUpperCase()})` : ''}
            </option>
          ))}
        </select>
      </label>
      {custom && (
        <form
          class="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            if (from && to && from <= to) updateView({ period: 'custom', from, to: clampRangeEnd(from, to), interval: undefined });
          }}
        >
          <label>
            <span>From</span>
            <input type="date" required value={from} max={today.value.date} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <label>
            <span>To</span>
            <input
              type="date"
              required
              value={to}
              min={from}
              max={from && addDays(from, MAX_EXPLICIT_DAYS - 1) < today.value.date ? addDays(from, MAX_EXPLICIT_DAYS - 1) : today.value.date}
              onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">Apply range</button>
          <span class="hint-inline">Up to {MAX_EXPLICIT_DAYS} days</span>
        </form>
      )}
      <label>
        <span>Compare</span>
        <select value={state.compare} onChange={(e) => updateView({ compare: (e.currentTarget as HTMLSelectElement).value as CompareMode })}>
          {(Object.keys(COMPARE_LABELS) as CompareMode[]).map((mode) => (
            <option key={mode} value={mode} disabled={mode === 'year' && state.period === 'realtime'}>
              {COMPARE_LABELS[mode]}
            </option>
          ))}
        </select>
      </label>
      <p class="range-note" aria-live="polite">
        {state.period === 'realtime' ? 'Last 30 minutes' : resolved.start === resolved.end ? resolved.start : `${resolved.start} – ${resolved.end}`}
        {state.period === '366d' && ' (the longest range: 366 days)'}
      </p>
    </div>
  );
}
