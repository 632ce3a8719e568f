import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { Annotation } from '../api/annotations.js';
import { bucketOf, noteWhen } from '../state/annotation-time.js';

interface Marker {
  bucket: number;
  notes: Annotation[];
}

/** Notes grouped by the graph bucket they fall in, in bucket order. */
export function markersOf(notes: readonly Annotation[], labels: readonly string[], timezone: string): Marker[] {
  const byBucket = new Map<number, Annotation[]>();
  for (const note of notes) {
    const bucket = bucketOf(note, labels, timezone);
    if (bucket < 0) continue;
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), note]);
  }
  return [...byBucket.entries()].sort((a, b) => a[0] - b[0]).map(([bucket, list]) => ({ bucket, notes: list }));
}

let nextId = 0;

/**
 * A button per annotated bucket, over the chart at its x position: hover or focus
 * (Tab reaches them) shows the notes in a tooltip, Escape hides it. Text only: a
 * note is whatever its writer typed.
 */
export function AnnotationMarkers({
  plot,
  notes,
  labels,
  timezone,
}: {
  plot: uPlot;
  notes: readonly Annotation[];
  labels: readonly string[];
  timezone: string;
}) {
  const layer = useRef<HTMLDivElement>(null);
  const [, relayout] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const ids = useRef(`note-tip-${++nextId}`);
  useEffect(() => {
    const box = plot.root.parentElement;
    if (!box) return;
    const observer = new ResizeObserver(() => relayout((n) => n + 1));
    observer.observe(box);
    return () => observer.disconnect();
  }, [plot]);
  const markers = markersOf(notes, labels, timezone);
  const host = layer.current?.getBoundingClientRect();
  const over = plot.over.getBoundingClientRect();
  const left0 = host ? over.left - host.left : 0;
  const top0 = host ? over.top - host.top : 0;
  return (
    <div ref={layer} class="note-layer">
      {host &&
        markers.map((marker) => {
          const x = left0 + plot.valToPos(marker.bucket, 'x');
          const tipId = `${ids.current}-${marker.bucket}`;
          // the visible count starts the name (WCAG 2.5.3, label in name)
          const label = `${marker.notes.length} ${marker.notes.length === 1 ? 'note' : 'notes'} on ${labels[marker.bucket]}`;
          return (
            <div key={marker.bucket} class="note-marker" data-bucket={marker.bucket} style={{ left: `${x}px`, top: `${top0}px`, height: `${over.height}px` }}>
              <button
                type="button"
                class="note-pin"
                aria-label={label}
                aria-describedby={tipId}
                aria-expanded={open === marker.bucket}
                onFocus={() => setOpen(marker.bucket)}
                onBlur={() => setOpen(null)}
                onMouseEnter={() => setOpen(marker.bucket)}
                onMouseLeave={() => setOpen(null)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') setOpen(null);
                }}
              >
                {marker.notes.length}
              </button>
              {/* past the middle the tooltip opens leftwards, inside the graph */}
              <div id={tipId} role="tooltip" class={marker.bucket > (labels.length - 1) / 2 ? 'note-tip flip' : 'note-tip'} hidden={open !== marker.bucket}>
                <ul>
                  {marker.notes.map((note) => (
                    <li key={note.annotation_id}>
                      <span class="note-when">{noteWhen(note, timezone)}</span> {note.text}
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          );
        })}
    </div>
  );
}
