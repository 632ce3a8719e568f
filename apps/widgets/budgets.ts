import type { WidgetType } from './widget-types.js';

/**
 * Each widget's budget in brotli bytes (issue 32): what a host page's visitor
 * downloads for it. The map's includes its country outlines, the globe's its WebGL
 * renderer (cobe). tests/budgets.test.ts fails a build over any of them;
 * `npm run bench -- widget-size` prints the figures beside them.
 */
export const WIDGET_BUDGETS_BR: Readonly<Record<WidgetType, number>> = {
  'live-users': 5 * 1024,
  countries: 5 * 1024,
  map: 50 * 1024,
  globe: 20 * 1024,
};
