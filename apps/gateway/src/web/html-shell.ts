import type { DashboardManifest } from './dashboard-dist.js';

export type Theme = 'light' | 'dark' | 'system';

/** The boot JSON the dashboard reads from `#sightline-boot` (the contract's "Pages"). */
export interface BootData {
  page: 'home' | 'site' | 'share';
  site_id?: number;
  share_hash?: string;
  embed: boolean;
  theme: Theme;
}

/**
 * The page icon, inline: a `data:` image (CSP img-src allows it) so no page makes a
 * request that can only 404, and nothing is fetched from another host.
 */
const ICON_LINK =
  '<link rel="icon" href="data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#4338ca"/><path d="M3 12l3-4 3 2 4-6" stroke="#fff" stroke-width="2" fill="none"/></svg>',
  ) +
  '">';

/**
 * The one HTML shell every dashboard page answers: the hashed stylesheet and module,
 * and the boot data as JSON (not script: `type="application/json"` never runs, and
 * `<`, `>` and `&` are escaped so no value can close the element).
 */
export function renderShell(manifest: Pick<DashboardManifest, 'entry' | 'css'>, boot: BootData, title: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    ICON_LINK +
    `<title>${escapeHtml(title)}</title>` +
    `<link rel="stylesheet" href="/${escapeHtml(manifest.css)}">` +
    `<script type="module" src="/${escapeHtml(manifest.entry)}"></script>` +
    '</head><body>' +
    `<script type="application/json" id="sightline-boot">${bootJson(boot)}</script>` +
    '<div id="app"></div></body></html>'
  );
}

export function bootJson(boot: BootData): string {
  return JSON.stringify(boot).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The one 404 page: an unknown share hash, a share whose public dashboard is off and a
 * malformed page address answer these same bytes, so nothing tells them apart.
 */
export const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1">' +
  ICON_LINK +
  '<title>Not found · Sightline</title></head><body><main><h1>Not found</h1>' +
  '<p>There is no dashboard at this address. It may never have existed, or its owner no longer shares it.</p>' +
  '<p><a href="/">Sightline</a></p></main></body></html>';

/** While the dashboard is not built (no manifest in DASHBOARD_DIR): say so instead of a blank page. */
export const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built · Sightline</title></head>' +
  '<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (or set DASHBOARD_DIR to a build) and restart. The API works meanwhile.</p></main></body></html>';
