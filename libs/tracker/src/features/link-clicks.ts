/**
 * Shared by outbound-links and file-downloads (not a feature itself): calls
 * `handler` with the link of a click (mouse or keyboard; middle-clicks, which
 * fire only `auxclick`, are not counted: the bytes go to the standard target).
 * Bundled only when one of them is selected.
 */
import { doc } from '../core/globals.js';

export function linkClicks(handler: (link: HTMLAnchorElement) => void): void {
  doc.addEventListener('click', (event) => {
    const link = (event.target as Element).closest('a');
    if (link && link.href) handler(link);
  });
}
