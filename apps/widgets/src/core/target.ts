import { warn } from './options.js';

/**
 * The element the widget renders into: data-target's element (waiting for the
 * document to finish parsing if the script ran before it), or a container inserted
 * right before the script.
 */
export function findTarget(script: HTMLScriptElement, id: string, found: (host: HTMLElement) => void): void {
  const attempt = (last: boolean) => {
    if (id) {
      const element = document.getElementById(id);
      if (element) return (found(element), true);
      if (last) warn(`no element with id "${id}" (data-target) on this page`);
      return false;
    }
    const container = document.createElement('div');
    if (script.parentNode && !script.closest('head')) {
      script.parentNode.insertBefore(container, script);
      return (found(container), true);
    }
    if (document.body) {
      document.body.append(container);
      return (found(container), true);
    }
    return false;
  };
  if (attempt(document.readyState !== 'loading')) return;
  document.addEventListener('DOMContentLoaded', () => void attempt(true), { once: true });
}
