import type { Theme } from './options.js';
import { BASE_CSS } from './styles.js';

/**
 * Where a widget draws: a closed shadow root on the target element, holding one
 * wrapper `.w` in the chosen theme. `data-state` on the target (loading, ready, error)
 * is the one thing the host page can see of it (browser tests wait on it).
 */
export interface View {
  host: HTMLElement;
  /** the wrapper every widget fills */
  body: HTMLDivElement;
  setState(state: 'loading' | 'ready' | 'error'): void;
}

let sheet: CSSStyleSheet | undefined;

export function mount(host: HTMLElement, theme: Theme, accent: string): View | null {
  let root: ShadowRoot;
  try {
    root = host.attachShadow({ mode: 'closed' });
  } catch {
    // already holds a widget (or cannot hold a shadow root at all)
    return null;
  }
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(BASE_CSS);
  }
  root.adoptedStyleSheets = [sheet];
  const body = document.createElement('div');
  body.className = `w ${theme}`;
  // CSSOM, not a style attribute: allowed under a CSP without 'unsafe-inline'
  if (accent) body.style.setProperty('--accent', accent);
  root.append(body);
  return {
    host,
    body,
    setState: (state) => host.setAttribute('data-state', state),
  };
}
