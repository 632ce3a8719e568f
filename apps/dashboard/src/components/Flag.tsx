/**
 * A country's flag beside its name, decoration only (aria-hidden: the name is the
 * text). Flags are pairs of regional indicator letters that only an emoji font joins
 * into one picture; without one (Debian's Chromium, Windows) they show as two boxes
 * or letters, so the page measures once and leaves flags out there.
 */
let shown: boolean | undefined;

/** A flag renders when the pair is drawn as one glyph: narrower than two single indicators. */
export function rendersAsOneGlyph(pairWidth: number, singleWidth: number): boolean {
  return pairWidth > 0 && singleWidth > 0 && pairWidth < singleWidth * 1.5;
}

function flagsRender(): boolean {
  if (shown !== undefined) return shown;
  try {
    const context = document.createElement('canvas').getContext('2d');
    if (!context) return (shown = false);
    context.font = `16px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
    shown = rendersAsOneGlyph(context.measureText('\u{1F1E9}\u{1F1EA}').width, context.measureText('\u{1F1E9}').width);
  } catch {
    shown = false;
  }
  return shown;
}

export function Flag({ flag }: { flag: string }) {
  if (!flag || !flagsRender()) return null;
  return (
    <span class="flag" aria-hidden="true">
      {flag}
    </span>
  );
}
