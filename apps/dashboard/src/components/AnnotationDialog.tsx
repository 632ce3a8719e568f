import { useState } from 'preact/hooks';
import { annotationWrites, type Annotation, type AnnotationInput } from '../api/annotations.js';
import { ApiFailure, type DataSource } from '../api/client.js';
import { localMinute, zonedToUtc } from '../state/annotation-time.js';
import { annotationsVersion } from '../state/use-annotations.js';
import { Modal } from './Modal.js';

type SessionSource = Extract<DataSource, { kind: 'session' }>;

/**
 * Add or edit a note: a site-local day, an optional time on the site's clock, the
 * text (280 characters). Editing also offers deletion. The API's refusal is shown
 * as it words it.
 */
export function AnnotationDialog({
  source,
  timezone,
  note,
  day,
  onClose,
}: {
  source: SessionSource;
  timezone: string;
  note?: Annotation;
  day: string;
  onClose: () => void;
}) {
  const initial = note?.datetime ? localMinute(note.datetime, timezone) : undefined;
  const [date, setDate] = useState(note ? (initial?.slice(0, 10) ?? note.local_date) : day);
  const [time, setTime] = useState(initial?.slice(11, 16) ?? '');
  const [text, setText] = useState(note?.text ?? '');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const run = async (write: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await write();
      annotationsVersion.value += 1;
      onClose();
    } catch (failure) {
      setError(failure instanceof ApiFailure || failure instanceof Error ? failure.message : 'The note could not be saved.');
      setBusy(false);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    const input: AnnotationInput = time ? { datetime: zonedToUtc(date, time, timezone), text } : { date, text };
    void run(() => (note ? annotationWrites.update(source, note.annotation_id, input) : annotationWrites.create(source, input)));
  };
  return (
    <Modal title={note ? 'Edit note' : 'Add a note'} onClose={onClose}>
      <form class="note-form" onSubmit={save}>
        <label>
          <span>Day</span>
          <input type="date" required value={date} onInput={(e) => setDate((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Time ({timezone}, optional)</span>
          <input type="time" value={time} onInput={(e) => setTime((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Note</span>
          <input type="text" required maxLength={280} value={text} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="dialog-actions">
          <button type="submit" disabled={busy}>
            Save
          </button>
          {note && (
            <button type="button" class="danger" disabled={busy} onClick={() => void run(() => annotationWrites.remove(source, note.annotation_id))}>
              Delete
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}
