import { useState } from 'preact/hooks';
import type { Annotation } from '../api/annotations.js';
import { noteWhen } from '../state/annotation-time.js';
import { client, siteInfo } from '../state/store.js';
import { AnnotationDialog } from './AnnotationDialog.js';
import { ErrorNote } from './Notes.js';
import type { ApiFailure } from '../api/client.js';

/**
 * The notes of the window under the graph, the keyboard's way to all of them; the
 * owner and admins add, edit and delete them here (members and shared pages read).
 */
export function AnnotationList({ notes, error, end }: { notes: readonly Annotation[]; error: ApiFailure | undefined; end: string }) {
  const source = client().source;
  const timezone = siteInfo.value?.timezone ?? 'UTC';
  const role = siteInfo.value?.role;
  const canWrite = source.kind === 'session' && (role === 'owner' || role === 'admin');
  const [editing, setEditing] = useState<Annotation | 'new' | undefined>();
  return (
    <div class="notes-list" data-annotations={notes.length}>
      <div class="notes-head">
        <h3 id="notes-title">Notes in this period ({notes.length})</h3>
        {canWrite && (
          <button type="button" onClick={() => setEditing('new')}>
            Add note
          </button>
        )}
      </div>
      {error && <ErrorNote error={error} />}
      {notes.length > 0 && (
        <ul aria-labelledby="notes-title">
          {notes.map((note) => (
            <li key={note.annotation_id} data-annotation-id={note.annotation_id}>
              <span class="note-when">{noteWhen(note, timezone)}</span> <span class="note-text">{note.text}</span>
              {note.author && <span class="note-author"> · {note.author}</span>}
              {canWrite && (
                <button
                  type="button"
                  class="link-button"
                  aria-label={`Edit the note of ${noteWhen(note, timezone)}: ${note.text}`}
                  onClick={() => setEditing(note)}
                >
                  Edit
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {editing && source.kind === 'session' && (
        <AnnotationDialog
          source={source}
          timezone={timezone}
          day={end}
          {...(editing === 'new' ? {} : { note: editing })}
          onClose={() => setEditing(undefined)}
        />
      )}
    </div>
  );
}
