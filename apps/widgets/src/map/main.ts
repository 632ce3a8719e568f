import shapes from 'sightline:world-shapes';
import { parseCountries, type CountriesAnswer, type CountryRow } from '../core/answers.js';
import { countryList } from '../core/country-list.js';
import { credit, el, svg } from '../core/dom.js';
import { windowLabel } from '../core/format.js';
import { runWidget } from '../core/widget.js';
import { LEVELS, level } from './levels.js';
import { MAP_SIZE } from './map-size.js';

/**
 * map: a world choropleth of visitors by country over a window (data-window, default
 * the last 30 days), shaded in five classes of the accent colour (the class carries
 * the shade), with a legend and the value of the country under the pointer. The
 * outlines are projected at build time; a screen reader gets the same numbers as a
 * list. Refreshed every 5 minutes.
 */
runWidget<CountriesAnswer>({
  type: 'map',
  refreshMs: 5 * 60_000,
  parse: parseCountries,
  params: (options): Record<string, string> => (options.window ? { window: options.window } : {}),
  create(view, options, format) {
    if (options.size) view.body.style.setProperty('max-width', `${options.size}px`);
    const map = svg('svg', { class: 'map', viewBox: `0 0 ${MAP_SIZE.width} ${MAP_SIZE.height}`, 'aria-hidden': 'true' });
    const paths = shapes.map(([code, d]) => {
      const path = svg('path', { d });
      path.dataset['code'] = code;
      map.append(path);
      return path;
    });
    const tip = el('div', { class: 'tip', hidden: '' });
    let byCode = new Map<string, CountryRow>();

    const describe = (row: CountryRow) => `${format.country(row.code, row.name)}: ${format.number(row.visitors)} visitors (${format.percent(row.share)})`;
    map.addEventListener('pointermove', (event) => {
      const code = event.target instanceof SVGPathElement ? (event.target.dataset['code'] ?? '') : '';
      const row = byCode.get(code);
      if (!row) return void tip.setAttribute('hidden', '');
      const box = view.body.getBoundingClientRect();
      tip.textContent = describe(row);
      tip.style.setProperty('left', `${event.clientX - box.left}px`);
      tip.style.setProperty('top', `${event.clientY - box.top}px`);
      tip.removeAttribute('hidden');
    });
    map.addEventListener('pointerleave', () => tip.setAttribute('hidden', ''));

    return {
      draw(answer) {
        byCode = new Map(answer.countries.map((r) => [r.code, r]));
        const max = Math.max(1, ...answer.countries.map((r) => r.visitors));
        for (const path of paths) {
          const row = byCode.get(path.dataset['code'] ?? '');
          path.setAttribute('class', row && row.visitors > 0 ? `l${level(row.visitors, max)}` : '');
        }
        const period = windowLabel(answer.window || options.window);
        const legend = el('div', { class: 'legend', 'aria-hidden': 'true' }, el('span', {}, '1'));
        for (let l = 1; l <= LEVELS; l += 1) legend.append(el('span', { class: `sw l${l}` }));
        legend.append(el('span', {}, `${format.number(max)} visitors`));
        const listed = el('div', { class: 'sr' }, countryList(answer.countries, format));
        const section = el('section', {
          'aria-label': `Visitors by country (map), ${period}: ${format.number(answer.visitors)} visitors from ${format.number(answer.countries.length)} countries`,
        });
        section.append(el('p', { class: 'title' }, `Visitors by country · ${period}`), map, tip, legend, listed, credit());
        view.body.replaceChildren(section);
      },
      placeholder: () => view.body.replaceChildren(el('p', { class: 'placeholder' }, 'The visitors map is unavailable right now.')),
    };
  },
});
