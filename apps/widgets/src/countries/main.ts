import { parseCountries, type CountriesAnswer } from '../core/answers.js';
import { countryList } from '../core/country-list.js';
import { credit, el } from '../core/dom.js';
import { windowLabel } from '../core/format.js';
import { runWidget } from '../core/widget.js';

/**
 * countries: the top countries over a window (data-window, default the last 30 days)
 * with flag, name, visitors and share; data-limit rows (1–50, default 10). Plain DOM;
 * refreshed every 5 minutes.
 */
runWidget<CountriesAnswer>({
  type: 'countries',
  refreshMs: 5 * 60_000,
  parse: parseCountries,
  params: (options): Record<string, string> => (options.window ? { window: options.window } : {}),
  create(view, options, format) {
    return {
      draw(answer) {
        const period = windowLabel(answer.window || options.window);
        const rows = answer.countries.slice(0, options.limit);
        const section = el('section', { 'aria-label': `Top countries, ${period}: ${format.number(answer.visitors)} visitors` });
        section.append(el('p', { class: 'title' }, `Top countries · ${period}`), countryList(rows, format), credit());
        view.body.replaceChildren(section);
      },
      placeholder: () => view.body.replaceChildren(el('p', { class: 'placeholder' }, 'Visitor countries are unavailable right now.')),
    };
  },
});
