import type { Boot } from './boot.js';

/**
 * Light, dark or the system's choice (prefers-color-scheme, in CSS). Embeds take
 * the theme from their URL; the full page remembers a person's choice in
 * localStorage (a preference, nothing secret).
 */
export type Theme = Boot['theme'];
const KEY = 'sightline-theme';

export function storedTheme(): Theme | undefined {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' || value === 'system' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function setTheme(theme: Theme, remember: boolean): void {
  document.documentElement.dataset['theme'] = theme;
  if (!remember) return;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // storage refused (private mode): the choice lasts this page only
  }
}

export function applyTheme(boot: Boot): void {
  setTheme(boot.embed ? boot.theme : (storedTheme() ?? boot.theme), false);
}

export function currentTheme(): Theme {
  const value = document.documentElement.dataset['theme'];
  return value === 'light' || value === 'dark' ? value : 'system';
}
