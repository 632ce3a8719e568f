import { describe, expect, it } from 'vitest';
import { describeFilter } from '../src/state/labels.js';
import {
  apiFilters,
  clampRangeEnd,
  DEFAULT_STATE,
  joinValues,
  parseFilter,
  parseState,
  serializeState,
  splitValues,
  withFilter,
  withoutFilter,
} from '../src/state/url-state.js';

describe('URL state', () => {
  it('reads the readable form of the issue', () => {
    const state = parseState('?period=30d&f=is,country,DE&compare=previous&interval=day&metric=visitors');
    expect(state).toEqual({
      period: '30d',
      compare: 'previous',
      interval: 'day',
      metric: 'visitors',
      filters: [{ operator: 'is', field: 'country', values: ['DE'] }],
    });
  });

  it('writes it back readably, defaults left out but the period kept', () => {
    const state = parseState('?period=7d&f=contains,page,/blog&f=is_not,source,Google&compare=year&metric=bounce_rate');
    expect(serializeState(state)).toBe('?period=7d&f=contains,page,/blog&f=is_not,source,Google&compare=year&metric=bounce_rate');
    expect(serializeState(DEFAULT_STATE)).toBe('?period=30d');
  });

  it('round-trips values with commas, ampersands, hashes, quotes, CRLF and non-ASCII', () => {
    const value = 'a,b&c=d#e "f" <g>\r\nü/𝄞 %20';
    const state = withFilter(DEFAULT_STATE, { operator: 'is', field: 'page', values: [value] });
    const search = serializeState(state);
    expect(search).not.toMatch(/[#&][^pf]/);
    expect(parseState(search).filters).toEqual([{ operator: 'is', field: 'page', values: [value] }]);
  });

  it('keeps page parameters (embed, theme) first', () => {
    expect(serializeState({ ...DEFAULT_STATE, period: 'day' }, { embed: 'true', theme: 'dark' })).toBe('?embed=true&theme=dark&period=day');
  });

  it('drops what it cannot read instead of failing', () => {
    expect(parseState('?period=5y&compare=nope&interval=decade&metric=revenue&f=is,planet,Mars&f=like,page,/&f=is,page,&f=contains,event,Signup')).toEqual({
      ...DEFAULT_STATE,
      filters: [],
    });
  });

  it('a custom period needs an ordered from/to, else falls back to the default', () => {
    expect(parseState('?period=custom&from=2026-01-01&to=2026-01-31')).toMatchObject({ period: 'custom', from: '2026-01-01', to: '2026-01-31' });
    expect(parseState('?period=custom&from=2026-02-01&to=2026-01-31').period).toBe('30d');
    expect(parseState('?period=custom&from=yesterday&to=2026-01-31').period).toBe('30d');
    expect(serializeState(parseState('?period=custom&from=2026-01-01&to=2026-01-31'))).toBe('?period=custom&from=2026-01-01&to=2026-01-31');
  });

  it('caps filters at 20 and drops duplicates', () => {
    const many = Array.from({ length: 30 }, (_, i) => `f=is,page,/p${i}`).join('&');
    expect(parseState(`?${many}`).filters).toHaveLength(20);
    expect(parseState('?f=is,page,/a&f=is,page,/a').filters).toHaveLength(1);
  });

  it('parses a filter whose value holds commas', () => {
    expect(parseFilter('contains,referrer,a,b,c')).toEqual({ operator: 'contains', field: 'referrer', values: ['a,b,c'] });
    expect(parseFilter('is,event,Signup')).toEqual({ operator: 'is', field: 'event', values: ['Signup'] });
    expect(parseFilter('is_not,event,Signup')).toBeUndefined();
  });

  it('a row click replaces an is filter on the same field; removal takes exactly that filter', () => {
    let state = withFilter(DEFAULT_STATE, { operator: 'is', field: 'country', values: ['DE'] });
    state = withFilter(state, { operator: 'is', field: 'country', values: ['FR'] });
    state = withFilter(state, { operator: 'contains', field: 'page', values: ['/blog'] });
    expect(state.filters).toEqual([
      { operator: 'is', field: 'country', values: ['FR'] },
      { operator: 'contains', field: 'page', values: ['/blog'] },
    ]);
    expect(withoutFilter(state, { operator: 'is', field: 'country', values: ['FR'] }).filters).toEqual([
      { operator: 'contains', field: 'page', values: ['/blog'] },
    ]);
    expect(apiFilters(state.filters)).toEqual([
      { field: 'country', operator: 'is', values: ['FR'] },
      { field: 'page', operator: 'contains', values: ['/blog'] },
    ]);
  });

  it('writes several values of one filter as DE|FR and reads them back', () => {
    const state = withFilter(DEFAULT_STATE, { operator: 'is', field: 'country', values: ['DE', 'FR'] });
    expect(serializeState(state)).toBe('?period=30d&f=is,country,DE|FR');
    expect(parseState('?f=is,country,DE|FR').filters).toEqual([{ operator: 'is', field: 'country', values: ['DE', 'FR'] }]);
    expect(parseState('?f=is,country,DE%7CFR').filters).toEqual([{ operator: 'is', field: 'country', values: ['DE', 'FR'] }]);
    expect(apiFilters(state.filters)).toEqual([{ field: 'country', operator: 'is', values: ['DE', 'FR'] }]);
  });

  it('escapes the separator and the backslash inside values', () => {
    expect(joinValues(['a|b', 'c\\d', 'e'])).toBe('a\\|b|c\\\\d|e');
    expect(splitValues('a\\|b|c\\\\d|e')).toEqual(['a|b', 'c\\d', 'e']);
    // a lone trailing backslash is kept literally; an escaped ordinary character is that character
    expect(splitValues('x\\')).toEqual(['x\\']);
    expect(splitValues('\\x|y')).toEqual(['x', 'y']);
  });

  it('round-trips several values holding commas, pipes, backslashes, quotes, CRLF and NUL', () => {
    const values = ['a,b', 'c|d', 'e\\|f', '\\', 'say "hi" \'there\'', 'line\r\nbreak', 'nul\u0000end', '|', ',', 'ü𝄞 %7C %20'];
    const state = withFilter(DEFAULT_STATE, { operator: 'is_not', field: 'page', values });
    const search = serializeState(state);
    expect(search.startsWith('?period=30d&f=is_not,page,a,b|c\\'.replace('\\', '%5C'))).toBe(true);
    expect(parseState(search).filters).toEqual([{ operator: 'is_not', field: 'page', values }]);
    // and through the browser's own URL parsing
    expect(parseState(new URL(`https://x.test/sites/1${search}`).search).filters).toEqual([{ operator: 'is_not', field: 'page', values }]);
  });

  it('drops empty and repeated values; a filter of only empty values is dropped', () => {
    expect(parseFilter('is,country,DE||DE|FR|')).toEqual({ operator: 'is', field: 'country', values: ['DE', 'FR'] });
    expect(parseFilter('is,country,|')).toBeUndefined();
    expect(parseFilter(`is,page,/a|${'x'.repeat(1001)}`)).toBeUndefined();
    expect(parseFilter(`is,page,${Array.from({ length: 150 }, (_, i) => `/p${i}`).join('|')}`)?.values).toHaveLength(100);
  });

  it('the event filter takes exactly one value', () => {
    expect(parseFilter('is,event,Signup|Purchase')).toBeUndefined();
    expect(parseFilter('is,event,Sign\\|up')).toEqual({ operator: 'is', field: 'event', values: ['Sign|up'] });
  });

  it('a filter with other values is another filter (removal, duplicates)', () => {
    const state = parseState('?f=is,country,DE|FR&f=is,country,FR|DE&f=is,country,DE|FR');
    expect(state.filters).toHaveLength(2);
    expect(withoutFilter(state, { operator: 'is', field: 'country', values: ['FR', 'DE'] }).filters).toEqual([
      { operator: 'is', field: 'country', values: ['DE', 'FR'] },
    ]);
  });

  it('a chip names every value: "or", and "nor" for the excluding operators', () => {
    expect(describeFilter({ operator: 'is', field: 'country', values: ['DE', 'FR'] })).toBe('Country is Germany or France');
    expect(describeFilter({ operator: 'is_not', field: 'country', values: ['DE', 'FR'] })).toBe('Country is not Germany nor France');
    expect(describeFilter({ operator: 'contains', field: 'page', values: ['/blog', '/docs'] })).toBe('Page contains /blog or /docs');
    expect(describeFilter({ operator: 'is', field: 'source', values: ['Google'] })).toBe('Source is Google');
  });

  it('reads an old period=all link as the last 366 days, and writes it so', () => {
    expect(parseState('?period=all').period).toBe('366d');
    expect(serializeState(parseState('?period=all'))).toBe('?period=366d');
    expect(parseState('?period=toString').period).toBe('30d');
  });

  it('a custom range longer than 366 days is cut in the URL too; impossible dates fall back', () => {
    expect(clampRangeEnd('2024-01-01', '2026-01-01')).toBe('2024-12-31'); // 2024 is a leap year: 366 days
    expect(clampRangeEnd('2025-01-01', '2026-12-31')).toBe('2026-01-01');
    expect(clampRangeEnd('2025-01-01', '2025-06-30')).toBe('2025-06-30');
    const state = parseState('?period=custom&from=2024-01-01&to=2026-01-01');
    expect(state).toMatchObject({ period: 'custom', from: '2024-01-01', to: '2024-12-31' });
    expect(serializeState(state)).toBe('?period=custom&from=2024-01-01&to=2024-12-31');
    expect(parseState('?period=custom&from=2026-02-30&to=2026-03-31').period).toBe('30d');
  });
});
