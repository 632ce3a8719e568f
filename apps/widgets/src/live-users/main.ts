import { parseLiveUsers, type LiveUsersAnswer } from '../core/answers.js';
import { el, svg } from '../core/dom.js';
import { runWidget } from '../core/widget.js';

/**
 * live-users: unique visitors in the last 5 minutes, refreshed every 30 s, with an
 * optional sparkline of the last 30 minutes (one point a minute). Plain DOM.
 */
runWidget<LiveUsersAnswer>({
  type: 'live-users',
  refreshMs: 30_000,
  parse: parseLiveUsers,
  params: () => ({}),
  create(view, options, format) {
    const number = el('span', { class: 'num' });
    const figure = el(
      'div',
      { role: 'group' },
      el('span', { class: 'dot', 'aria-hidden': 'true' }),
      number,
      el('div', { class: 'muted' }, 'visitors in the last 5 minutes'),
    );
    const line = svg('path');
    const spark = svg('svg', { class: 'spark', viewBox: '0 0 100 40', preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    spark.append(line);
    const placeholder = el('p', { class: 'placeholder' }, 'Live visitors are unavailable right now.');
    return {
      draw(answer) {
        const shown = format.number(answer.visitors);
        number.textContent = shown;
        const peak = Math.max(0, ...answer.sparkline.map((p) => p.visitors));
        figure.setAttribute(
          'aria-label',
          `Live visitors: ${shown} in the last 5 minutes${answer.sparkline.length > 0 ? `, at most ${format.number(peak)} a minute over the last 30 minutes` : ''}`,
        );
        line.setAttribute('d', sparkPath(answer.sparkline.map((p) => p.visitors)));
        view.body.replaceChildren(figure, ...(options.sparkline && answer.sparkline.length > 1 ? [spark] : []));
      },
      placeholder: () => view.body.replaceChildren(placeholder),
    };
  },
});

/** The points as one path over a 100×40 box (stretched to the widget's width), highest at the top. */
function sparkPath(values: number[]): string {
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? 100 / (values.length - 1) : 0;
  return values.map((v, i) => `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)} ${(38 - (v / max) * 36).toFixed(1)}`).join('');
}
