import type { Page } from 'playwright-core';

/**
 * The widgets render into CLOSED shadow roots, which neither the host page nor
 * Playwright's locators can enter. This init script (test-only, added before the
 * widget runs) keeps a reference to every shadow root attached, by its host's id, so
 * the tests can read what a widget shows. With `open`, the roots are attached open
 * instead, for axe-core, which does not see into closed roots.
 */
export function probeScript(open = false): string {
  return `(() => {
  const roots = new Map();
  const attach = Element.prototype.attachShadow;
  Object.defineProperty(window, '__widgetRoots', { value: roots });
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, ${open ? "{ ...init, mode: 'open' }" : 'init'});
    roots.set(this.id, root);
    return root;
  };
})();`;
}

/** What the functions run in the page see: they are serialised alone, so each reads the page's globals itself. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InPage = any;

/** Waits until the widget on `id` reaches `state` (its data-state), failing with what it shows. */
export async function waitForState(page: Page, id: string, state: 'ready' | 'error', timeout = 45_000): Promise<void> {
  await page
    .waitForFunction(
      ([target, wanted]) => (globalThis as InPage).document.getElementById(target!)?.getAttribute('data-state') === wanted,
      [id, state] as const,
      { timeout },
    )
    .catch(async (error: unknown) => {
      throw new Error(
        `widget #${id} never reached data-state=${state} (now ${await page.evaluate((t) => (globalThis as InPage).document.getElementById(t)?.getAttribute('data-state'), id)}): ${await widgetText(page, id)}\n${String(error)}`,
      );
    });
}

/** The widget's text (screen-reader-only text included), text nodes joined by a space. */
export function widgetText(page: Page, id: string): Promise<string> {
  return page.evaluate(
    ([target]) => {
      const root = (globalThis as InPage).__widgetRoots.get(target!);
      if (!root) return '(no shadow root)';
      // each text node apart, as a reader meets them (textContent would glue "4" to "visitors")
      const walker = (globalThis as InPage).document.createTreeWalker(root, (globalThis as InPage).NodeFilter.SHOW_TEXT);
      const parts: string[] = [];
      while (walker.nextNode()) parts.push(walker.currentNode.textContent ?? '');
      return parts.join(' ').replace(/\s+/g, ' ').trim();
    },
    [id] as const,
  );
}

/** aria-label values inside the widget, in document order. */
export function widgetLabels(page: Page, id: string): Promise<string[]> {
  return page.evaluate(
    ([target]) =>
      [...((globalThis as InPage).__widgetRoots.get(target!)?.querySelectorAll('[aria-label]') ?? [])].map((e: InPage) => e.getAttribute('aria-label') ?? ''),
    [id] as const,
  );
}

/** Each country row of a list: [name, visitors, share]. */
export function widgetRows(page: Page, id: string): Promise<string[][]> {
  return page.evaluate(
    ([target]) =>
      [...((globalThis as InPage).__widgetRoots.get(target!)?.querySelectorAll('.list li') ?? [])].map((li: InPage) => [
        li.querySelector('.name')?.textContent ?? '',
        (li.querySelector('.visitors')?.firstChild?.textContent ?? '').trim(),
        li.querySelector('.share')?.textContent ?? '',
      ]),
    [id] as const,
  );
}
