/** The widget types, as the snippet's `type` and the script's URL name them. */
export const WIDGET_TYPES = ['globe', 'live-users', 'map', 'countries'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];
