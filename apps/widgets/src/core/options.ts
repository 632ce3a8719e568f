/**
 * The widget's options, read once from its own `<script>`'s data attributes and
 * validated here: anything out of range falls back to the default (with a console
 * warning for the site owner), never to an error on the host page.
 */
export type Theme = 'light' | 'dark' | 'auto';

export interface WidgetOptions {
  key: string;
  /** the target element's id; '' = a container inserted before the script */
  target: string;
  /** the Sightline origin (and path prefix) the data comes from, without a trailing slash */
  api: string;
  theme: Theme;
  /** '#rrggbb' or '' (the theme's own) */
  accent: string;
  locale: string;
  /** countries/map: the window the server accepts ('' = its default, 30d) */
  window: string;
  /** countries: 1–50 */
  limit: number;
  /** live-users */
  sparkline: boolean;
  /** globe/map: px; 0 = the target's width */
  size: number;
}

const WINDOW = /^(?:\d{1,2}d|month)$/;
const KEY = /^wk_[A-Za-z0-9_-]{20,100}$/;

export function warn(message: string): void {
  console.warn(`[Sightline widget] ${message}`);
}

export function readOptions(script: HTMLScriptElement): WidgetOptions | null {
  const data = script.dataset;
  const key = data['key'] ?? '';
  if (!KEY.test(key)) {
    warn('data-key is missing or malformed: copy the snippet from the site settings again');
    return null;
  }
  return {
    key,
    target: data['target'] ?? '',
    api: apiBase(data['api'], script.src),
    theme:
      data['theme'] === 'dark' || data['theme'] === 'auto'
        ? data['theme']
        : data['theme'] === undefined || data['theme'] === 'light'
          ? 'light'
          : fallback('data-theme', 'light'),
    accent: data['accent'] === undefined ? '' : /^#[0-9a-fA-F]{6}$/.test(data['accent']) ? data['accent'] : fallback('data-accent', ''),
    locale: locale(data['locale']),
    window: data['window'] === undefined ? '' : WINDOW.test(data['window']) ? data['window'] : fallback('data-window', ''),
    limit: integer('data-limit', data['limit'], 1, 50, 10),
    sparkline: data['sparkline'] !== 'false',
    size: integer('data-size', data['size'], 80, 2000, 0),
  };
}

function fallback<T>(name: string, value: T): T {
  warn(`${name} is not one of the documented values; using the default`);
  return value;
}

function integer(name: string, raw: string | undefined, min: number, max: number, otherwise: number): number {
  if (raw === undefined) return otherwise;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback(name, otherwise);
}

function locale(raw: string | undefined): string {
  const wanted = raw ?? navigator.language;
  try {
    return Intl.getCanonicalLocales(wanted)[0] ?? 'en';
  } catch {
    return raw === undefined ? 'en' : fallback('data-locale', 'en');
  }
}

/** data-api, else the script's own origin: the data lives where the script came from. */
function apiBase(raw: string | undefined, scriptSrc: string): string {
  try {
    const url = new URL(raw ?? new URL(scriptSrc).origin);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    warn("data-api is not an http(s) URL; using the script's origin");
    return new URL(scriptSrc).origin;
  }
}
