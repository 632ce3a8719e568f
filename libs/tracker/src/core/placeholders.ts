/**
 * Per-site values. A bundle is built once per feature selection with these
 * placeholders inside double-quoted string literals; the script builder swaps in
 * the site's tracking key and collection endpoint (build/render-script.ts).
 */
export const KEY = '__SIGHTLINE_TRACKING_KEY__';
export const ENDPOINT = '__SIGHTLINE_ENDPOINT__';
