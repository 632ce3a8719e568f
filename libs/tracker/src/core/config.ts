import { doc, loc } from './globals.js';
export { ENDPOINT, KEY } from './placeholders.js';

/**
 * Local development and automated browsers are not counted: localhost, 127.x.x.x,
 * [::1], file: pages and `navigator.webdriver`. A `data-sightline-allow-localhost`
 * attribute on the script tag (any element present when the script runs) counts
 * them all again; tests use it.
 */
export const off =
  !doc.querySelector('[data-sightline-allow-localhost]') &&
  (/^(localhost|127\.[\d.]+|\[::1\])$/.test(loc.hostname) || loc.protocol == 'file:' || navigator.webdriver);
