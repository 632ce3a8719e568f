import type { CountryRow } from './answers.js';
import { el } from './dom.js';
import { flag, type Formatter } from './format.js';

/**
 * Countries as a list: flag, name, visitors, share and a bar (its width set through
 * CSSOM, so no style attribute). Used by the countries widget and as the globe's
 * fallback without WebGL.
 */
export function countryList(rows: CountryRow[], format: Formatter): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'placeholder' }, 'No visitors yet');
  const list = el('ol', { class: 'list' });
  for (const row of rows) {
    const name = format.country(row.code, row.name);
    const bar = el('span');
    bar.style.setProperty('--share', String(Math.min(100, row.share)));
    const item = el(
      'li',
      {},
      el('span', { 'aria-hidden': 'true' }, flag(row.code)),
      el('span', { class: 'name' }, name),
      el('span', { class: 'visitors' }, format.number(row.visitors), el('span', { class: 'sr' }, ' visitors')),
      el('span', { class: 'share' }, format.percent(row.share)),
      el('span', { class: 'bar', 'aria-hidden': 'true' }, bar),
    );
    list.append(item);
  }
  return list;
}
