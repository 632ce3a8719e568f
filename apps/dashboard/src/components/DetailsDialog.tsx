import { useEffect, useMemo, useState } from 'preact/hooks';
import type { QueryAnswer } from '../api/client.js';
import type { TabSpec } from '../catalogue.js';
import { formatExact, METRIC_LABELS, referrerHref } from '../format.js';
import { breakdownRequest } from '../state/requests.js';
import { client, period, view } from '../state/store.js';
import { useAsync } from '../state/use-query.js';
import { Modal } from './Modal.js';
import { ErrorNote } from './Notes.js';
import { Flag } from './Flag.js';
import { applyRow, rowFilter, shownRows, type ShownRow } from './rows.js';

const PAGE_SIZE = 20;
const FETCH_LIMIT = 1000;

/**
 * The full breakdown of one tab: search (on the server as a `contains` filter where
 * the field has one, else over the loaded rows), sort by any column, pages of 20,
 * and further rows loaded 1000 at a time while the API says has_more.
 */
export function DetailsDialog({ tab, dimension, title, onClose }: { tab: TabSpec; dimension: string; title: string; onClose: () => void }) {
  const state = view.value;
  const field = tab.filterField(state.filters);
  const serverSearch = field !== undefined && !tab.geo && field !== 'event';
  const [search, setSearch] = useState('');
  const [term, setTerm] = useState('');
  const [pages, setPages] = useState(1);
  const [sort, setSort] = useState<{ column: string; descending: boolean }>({ column: tab.metrics[0]!, descending: true });
  const [page, setPage] = useState(0);
  useEffect(() => {
    const timer = setTimeout(() => setTerm(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  useEffect(() => {
    setPages(1);
    setPage(0);
  }, [term]);

  const extra = serverSearch && term ? [{ field, operator: 'contains', values: [term] }] : [];
  const key = JSON.stringify([dimension, state, term, pages]);
  const answer = useAsync<QueryAnswer[]>(key, (signal) =>
    Promise.all(
      Array.from({ length: pages }, (_, i) =>
        client().query(breakdownRequest(state, period.value, dimension, tab.metrics, FETCH_LIMIT, extra, i * FETCH_LIMIT), signal),
      ),
    ),
  );
  const loaded = useMemo(() => (answer.data ?? []).flatMap((a) => shownRows(a.results, dimension, field)), [answer.data]);
  const hasMore = answer.data?.[answer.data.length - 1]?.meta?.has_more ?? false;
  const total = answer.data?.[0]?.meta?.total;

  const rows = useMemo(() => {
    const needle = term.toLowerCase();
    const kept = !serverSearch && needle ? loaded.filter((r) => r.label.toLowerCase().includes(needle) || r.value.toLowerCase().includes(needle)) : loaded;
    const direction = sort.descending ? -1 : 1;
    const byText = (a: ShownRow, b: ShownRow) => a.label.localeCompare(b.label) * direction;
    const byMetric = (a: ShownRow, b: ShownRow) => ((a.metrics[sort.column] ?? -Infinity) - (b.metrics[sort.column] ?? -Infinity)) * direction;
    return [...kept].sort(sort.column === 'label' ? byText : byMetric);
  }, [loaded, sort, term]);
  const pageCount = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const column = tab.column(state.filters);

  const header = (id: string, label: string, numeric: boolean) => {
    const active = sort.column === id;
    return (
      <th scope="col" class={numeric ? 'num' : undefined} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        <button type="button" class="sort-button" onClick={() => setSort({ column: id, descending: active ? !sort.descending : numeric })}>
          {label}
          <span aria-hidden="true">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
        </button>
      </th>
    );
  };

  return (
    <Modal title={title} onClose={onClose} wide>
      <div class="details" data-loading={answer.loading ? 'true' : undefined}>
        <label class="inline-label">
          <span>Search</span>
          <input type="search" value={search} maxLength={200} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {answer.error && <ErrorNote error={answer.error} />}
        <p class="muted" aria-live="polite">
          {answer.loading
            ? 'Loading…'
            : `${rows.length.toLocaleString('en-US')} rows${total !== undefined && total > loaded.length ? ` of ${total.toLocaleString('en-US')}` : ''}`}
        </p>
        <div class="table-scroll">
          <table class="data-table">
            <thead>
              <tr>
                {header('label', column, false)}
                {tab.metrics.map((m) => header(m, METRIC_LABELS[m] ?? m, true))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => {
                const filter = rowFilter(tab, state.filters, row, undefined);
                const href = tab.links ? referrerHref(row.value) : undefined;
                return (
                  <tr key={row.value}>
                    <th scope="row">
                      <Flag flag={row.flag} />
                      {filter ? (
                        <button
                          type="button"
                          class="row-button"
                          onClick={() => {
                            applyRow(tab, state, row);
                            onClose();
                          }}
                        >
                          {row.label}
                        </button>
                      ) : (
                        <span>{row.label}</span>
                      )}
                      {href && (
                        <a class="out-link" href={href} target="_blank" rel="noopener noreferrer nofollow" aria-label={`Open ${row.value}`}>
                          ↗
                        </a>
                      )}
                    </th>
                    {tab.metrics.map((m) => (
                      <td key={m} class="num">
                        {formatExact(m, row.metrics[m])}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <nav class="pagination" aria-label="Pages">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span>
            Page {page + 1} of {pageCount}
          </span>
          <button type="button" disabled={page + 1 >= pageCount} onClick={() => setPage(page + 1)}>
            Next page
          </button>
          {hasMore && (
            <button type="button" onClick={() => setPages(pages + 1)}>
              Load {FETCH_LIMIT} more rows
            </button>
          )}
        </nav>
      </div>
    </Modal>
  );
}
