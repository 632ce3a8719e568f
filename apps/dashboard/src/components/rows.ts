import type { QueryRow } from '../api/client.js';
import type { TabSpec } from '../catalogue.js';
import { flagOf } from '../format.js';
import { rememberLabel } from '../state/labels.js';
import { setView, siteInfo } from '../state/store.js';
import { withFilter, type DashboardState, type Filter, type FilterField } from '../state/url-state.js';
import type { SiteInfo } from '../api/client.js';

/** A breakdown row as the panels show it: value (the API's), readable label, flag. */
export interface ShownRow {
  value: string;
  label: string;
  flag: string;
  metrics: Record<string, number | null>;
  /** the row's values in the comparison period (compare on; absent for goals and status codes) */
  comparison?: QueryRow['comparison'];
}

export function shownRows(rows: readonly QueryRow[], dimension: string, field: FilterField | undefined): ShownRow[] {
  return rows.map((row) => {
    const value = row.dimensions?.[dimension] ?? '';
    const label = row.labels?.[dimension] ?? value;
    if (field) rememberLabel(field, value, row.labels?.[dimension]);
    return {
      value,
      label,
      flag: dimension === 'visit:country' ? flagOf(value) : dimension === 'visit:region' ? flagOf(value.slice(0, 2)) : '',
      metrics: row.metrics,
      ...(row.comparison ? { comparison: row.comparison } : {}),
    };
  });
}

/** The filter a row click sets, or undefined when the row cannot filter. */
export function rowFilter(tab: TabSpec, filters: readonly Filter[], row: ShownRow, site: SiteInfo | undefined): Filter | undefined {
  if (tab.id === 'goals') {
    const goal = site?.goals.find((g) => g.display_name === row.value);
    if (goal?.event_name) return { field: 'event', operator: 'is', values: [goal.event_name] };
    if (goal?.page_path && !goal.page_path.includes('*')) return { field: 'page', operator: 'is', values: [goal.page_path] };
    return undefined;
  }
  const field = tab.filterField(filters);
  if (!field || row.value === '') return undefined;
  return { field, operator: 'is', values: [row.value] };
}

export function applyRow(tab: TabSpec, state: DashboardState, row: ShownRow): void {
  const filter = rowFilter(tab, state.filters, row, siteInfo.value);
  if (filter) setView(withFilter(state, filter));
}
