/** The embeddable widgets: the `type` of GET /sites/{id}/snippet, GET /widgets/{type} and /widgets/v1/{type}.js. */
export const WIDGET_TYPES = ['globe', 'live-users', 'map', 'countries'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

const TYPES: ReadonlySet<string> = new Set(WIDGET_TYPES);

export function isWidgetType(value: string): value is WidgetType {
  return TYPES.has(value);
}

export const WIDGET_TYPE_LIST = WIDGET_TYPES.join(', ');
