import type { WidgetType } from './widget-types.js';

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A widget's embed: the element it renders into and an async classic script that
 * names it. A script, not an iframe: the widget takes the host's layout width with no
 * resize protocol, and its closed shadow root keeps the page's CSS and the widget's apart.
 * The script URL is the same for every site (owners paste it once; it caches well); the
 * key in `data-key` names the site.
 */
export function widgetSnippet(publicUrl: string, type: WidgetType, siteId: number, key: string): { script_url: string; key: string; snippet: string } {
  const scriptUrl = `${publicUrl}/widgets/v1/${type}.js`;
  const target = `sightline-${type}-${siteId}`;
  const snippet = `<div id="${target}"></div>\n<script async src="${escapeAttribute(scriptUrl)}" data-key="${escapeAttribute(key)}" data-target="${target}"></script>`;
  return { script_url: scriptUrl, key, snippet };
}
