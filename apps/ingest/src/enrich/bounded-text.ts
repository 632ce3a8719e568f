/** Bounds on stored strings: every enriched value has a maximum length. */

/** Cut to at most `max` UTF-16 units at a code point boundary, so no lone surrogate is stored. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
