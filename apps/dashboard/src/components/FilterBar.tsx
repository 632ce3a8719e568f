import { useEffect, useState } from 'preact/hooks';
import { describeFilter } from '../state/labels.js';
import { updateView, view, setView } from '../state/store.js';
import { filterText, withoutFilter } from '../state/url-state.js';
import { FilterDialog } from './FilterDialog.js';

/** The active filters as removable chips, "Add filter" (any field), "Clear filters"; Esc clears. */
export function FilterBar() {
  const filters = view.value.filters;
  const [adding, setAdding] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || document.querySelector('dialog[open]')) return;
      if (view.value.filters.length) updateView({ filters: [] });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="filter-bar" role="region" aria-label="Filters">
      <ul class="chips">
        {filters.map((filter) => {
          const text = describeFilter(filter);
          return (
            <li key={filterText(filter)} class="chip">
              <span class="chip-text">{text}</span>
              <button type="button" class="chip-remove" aria-label={`Remove filter: ${text}`} onClick={() => setView(withoutFilter(view.value, filter))}>
                ×
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" onClick={() => setAdding(true)}>
        Add filter
      </button>
      {filters.length > 0 && (
        <button type="button" class="link-button" onClick={() => updateView({ filters: [] })}>
          Clear filters (Esc)
        </button>
      )}
      {adding && <FilterDialog onClose={() => setAdding(false)} />}
    </div>
  );
}
