import { useEffect, useState } from 'preact/hooks';
import { FIELD_LABELS, OPERATOR_LABELS, SUGGESTION_DIMENSION, suggestionMetric } from '../catalogue.js';
import { rememberLabel } from '../state/labels.js';
import { breakdownRequest } from '../state/requests.js';
import { period, setView, view } from '../state/store.js';
import { filterLabel } from '../state/labels.js';
import {
  cleanValues,
  FILTER_FIELDS,
  FILTER_OPERATORS,
  MAX_FILTER_VALUE,
  MAX_FILTER_VALUES,
  withFilter,
  type FilterField,
  type FilterOperator,
} from '../state/url-state.js';
import { useQuery } from '../state/use-query.js';
import { Modal } from './Modal.js';

const GEO = new Set<FilterField>(['country', 'region', 'city']);

/**
 * Filter on any field: is / is not / contains / does not contain, with suggested
 * values from a breakdown. Several values are one filter (the API's OR; "is not":
 * none of them); the event filter takes one.
 */
export function FilterDialog({ onClose }: { onClose: () => void }) {
  const [field, setField] = useState<FilterField>('page');
  const [operator, setOperator] = useState<FilterOperator>('is');
  const [value, setValue] = useState('');
  const [values, setValues] = useState<string[]>([]);
  const single = field === 'event';
  const add = (v: string) => {
    const next = v.trim();
    if (!next) return;
    if (single) setValues([next]);
    else if (!values.includes(next) && values.length < MAX_FILTER_VALUES) setValues([...values, next]);
    setValue('');
  };
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setTyped(value), 250);
    return () => clearTimeout(timer);
  }, [value]);
  const operators = field === 'event' ? (['is'] as FilterOperator[]) : [...FILTER_OPERATORS];
  // suggestions: the field's breakdown in the current view, narrowed by what is typed (not for geo: codes)
  const narrow = typed && !GEO.has(field) && field !== 'event' ? [{ field, operator: 'contains', values: [typed] }] : [];
  const suggestions = useQuery(breakdownRequest(view.value, period.value, SUGGESTION_DIMENSION[field], [suggestionMetric(field)], 50, narrow));
  const dimension = SUGGESTION_DIMENSION[field];
  const options = (suggestions.data?.results ?? []).map((row) => {
    const code = row.dimensions?.[dimension] ?? '';
    const label = row.labels?.[dimension];
    rememberLabel(field, code, label);
    return { code, label };
  });

  return (
    <Modal title="Add filter" onClose={onClose}>
      <form
        class="filter-form"
        onSubmit={(e) => {
          e.preventDefault();
          const chosen = cleanValues(single && value.trim() ? [value.trim()] : [...values, value.trim()]);
          if (!chosen?.length) return;
          setView(withFilter(view.value, { field, operator, values: chosen }));
          onClose();
        }}
      >
        <label>
          <span>Field</span>
          <select
            value={field}
            onChange={(e) => {
              const next = (e.currentTarget as HTMLSelectElement).value as FilterField;
              setField(next);
              if (next === 'event') setOperator('is');
              setValue('');
              setValues([]);
            }}
          >
            {FILTER_FIELDS.map((f) => (
              <option key={f} value={f}>
                {FIELD_LABELS[f]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Operator</span>
          <select value={operator} onChange={(e) => setOperator((e.currentTarget as HTMLSelectElement).value as FilterOperator)}>
            {operators.map((op) => (
              <option key={op} value={op}>
                {OPERATOR_LABELS[op]}
              </option>
            ))}
          </select>
        </label>
        {values.length > 0 && (
          <div class="chosen-values">
            <p id="chosen-label">
              {single ? 'Value' : operator === 'is_not' || operator === 'does_not_contain' ? 'Values (none of them)' : 'Values (any of them)'}
            </p>
            <ul class="chips" aria-labelledby="chosen-label">
              {values.map((v) => (
                <li key={v} class="chip">
                  <span class="chip-text">{filterLabel(field, v)}</span>
                  <button
                    type="button"
                    class="chip-remove"
                    aria-label={`Remove value ${filterLabel(field, v)}`}
                    onClick={() => setValues(values.filter((x) => x !== v))}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        <div class="value-entry">
          <label>
            <span>
              {values.length && !single ? 'Another value' : 'Value'}
              {GEO.has(field) ? ' (code)' : ''}
            </span>
            <input
              type="text"
              list="filter-suggestions"
              required={values.length === 0}
              maxLength={MAX_FILTER_VALUE}
              autocomplete="off"
              value={value}
              onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
              onKeyDown={(e) => {
                // Enter in the field adds the value when the filter takes several; Apply submits
                if (e.key === 'Enter' && !single && value.trim()) {
                  e.preventDefault();
                  add(value);
                }
              }}
            />
          </label>
          {!single && (
            <button type="button" disabled={!value.trim()} onClick={() => add(value)}>
              Add value
            </button>
          )}
        </div>
        <datalist id="filter-suggestions">
          {options.map((o) => (
            <option key={o.code} value={o.code} label={o.label ?? o.code} />
          ))}
        </datalist>
        {options.length > 0 && (
          <div class="suggestions">
            <p id="suggestions-label">Suggestions</p>
            <ul aria-labelledby="suggestions-label">
              {options.slice(0, 12).map((o) => (
                <li key={o.code}>
                  <button type="button" class="link-button" aria-pressed={values.includes(o.code)} onClick={() => (single ? setValue(o.code) : add(o.code))}>
                    {o.label ? `${o.label} (${o.code})` : o.code}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        <div class="form-actions">
          <button type="submit">Apply filter</button>
          <button type="button" class="link-button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
