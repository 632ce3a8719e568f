import { describe, expect, it } from 'vitest';
import { apiFilters, DEFAULT_STATE, parseFilter, parseState, serializeState, withFilter, withoutFilter } from '../src/state/url-state.js';

describe('URL state', () => {
  it('reads the readable form of the issue', () => {
    const state = parseState('?period=30d&f=is,country,DE&compare=previous&interval=day&metric=visitors');
    expect(state).toEqual({ period: '30d', compare: 'previous', interval: 'day', metric: 'visitors', filters: [{ operator: 'is', field: 'country', value: 'DE' }] });
  });

  it('writes it back readably, defaults left out but the period kept', () => {
    const state = parseState('?period=7d&f=contains,page,/blog&f=is_not,source,Google&compare=year&metric=bounce_rate');
    expect(serializeState(state)).toBe('?period=7d&f=contains,page,/blog&f=is_not,source,Google&compare=year&metric=bounce_rate');
    expect(serializeState(DEFAULT_STATE)).toBe('?period=30d');
  });

  it('round-trips values with commas, ampersands, hashes, quotes, CRLF and non-ASCII', () => {
    const value = 'a,b&c=d#e "f" <g>\r\nü/𝄞 %20';
    const state = withFilter(DEFAULT_STATE, { operator: 'is', field: 'page', value });
    const search = serializeState(state);
    expect(search).not.toMatch(/[#&][^pf]/);
    expect(parseState(search).filters).toEqual([{ operator: 'is', field: 'page', value }]);
  });

  it('keeps page parameters (embed, theme) first', () => {
    expect(serializeState({ ...DEFAULT_STATE, period: 'day' }, { embed: 'true', theme: 'dark' })).toBe('?embed=true&theme=dark&period=day');
  });

  it('drops what it cannot read instead of failing', () => {
    expect(parseState('?period=5y&compare=nope&interval=decade&metric=revenue&f=is,planet,Mars&f=like,page,/&f=is,page,&f=contains,event,Signup')).toEqual({ ...DEFAULT_STATE, filters: [] });
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
    expect(parseFilter('contains,referrer,a,b,c')).toEqual({ operator: 'contains', field: 'referrer', value: 'a,b,c' });
    expect(parseFilter('is,event,Signup')).toEqual({ operator: 'is', field: 'event', value: 'Signup' });
    expect(parseFilter('is_not,event,Signup')).toBeUndefined();
  });

  it('a row click replaces an is filter on the same field; removal takes exactly that filter', () => {
    let state = withFilter(DEFAULT_STATE, { operator: 'is', field: 'country', value: 'DE' });
    state = withFilter(state, { operator: 'is', field: 'country', value: 'FR' });
    state = withFilter(state, { operator: 'contains', field: 'page', value: '/blog' });
    expect(state.filters).toEqual([{ operator: 'is', field: 'country', value: 'FR' }, { operator: 'contains', field: 'page', value: '/blog' }]);
    expect(withoutFilter(state, { operator: 'is', field: 'country', value: 'FR' }).filters).toEqual([{ operator: 'contains', field: 'page', value: '/blog' }]);
    expect(apiFilters(state.filters)).toEqual([{ field: 'country', operator: 'is', values: ['FR'] }, { field: 'page', operator: 'contains', values: ['/blog'] }]);
  });
});
