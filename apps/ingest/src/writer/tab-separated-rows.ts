import type { EncodedRows } from '@sightline/event-store';
import { EVENT_ROW_TSV_COLUMNS, SESSION_ROW_TSV_COLUMNS, sessionAttributesTsv, sessionRowTsv, type SessionAttributes } from '@sightline/events-schema';
import { sessionRowColumns, type SessionVersion } from '../sessions/sessionizer.js';

/**
 * How the writer hands events and sessions rows to the store:
 * - 'tsv': TabSeparated lines encoded here (rows-tsv.generated.ts), which the engine
 *   parses in about two thirds of the time JSON takes, from text that builds no
 *   object per session row version and no JSON per row;
 * - 'json': the row objects through `EventStore.insert` (JSONCompactEachRow), the
 *   path before it, kept as the ingestion bench's baseline.
 */
export type RowFormat = 'tsv' | 'json';

export const DEFAULT_ROW_FORMAT: RowFormat = 'tsv';

/**
 * A visit's attributes as TabSeparated text, encoded once per visit: every version
 * of a visit and every event row of it carries the values of one attributes object
 * (they never change), so its later rows, in this batch or the next, find the text here.
 */
const attributesText = new WeakMap<SessionAttributes, string>();

export function visitAttributesTsv(attributes: SessionAttributes): string {
  let text = attributesText.get(attributes);
  if (text === undefined) attributesText.set(attributes, (text = flat(sessionAttributesTsv(attributes))));
  return text;
}

/**
 * `text` stored as one run of characters. A template literal builds a tree of string
 * pieces (V8's cons strings, one node per part); kept for every live visit, that tree
 * took about five times the bytes of the text itself. Reading a character makes V8
 * flatten it in place, so the tree's nodes become garbage.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

function encoded(lines: string[], columns: readonly string[]): EncodedRows {
  return { format: 'TabSeparated', columns: [...columns], payload: Buffer.from(lines.join(''), 'utf8'), rows: lines.length };
}

/** Events rows already encoded (`eventRowTsv`, as the writer adds them) as one insert. */
export function eventLinesTsv(lines: string[]): EncodedRows {
  return encoded(lines, EVENT_ROW_TSV_COLUMNS);
}

/** Session row versions as TabSeparated, built straight from the visits' states. */
export function sessionVersionsTsv(versions: Iterable<SessionVersion>): EncodedRows {
  const lines: string[] = [];
  for (const { session, sign } of versions) lines.push(sessionRowTsv(sessionRowColumns(session, sign), visitAttributesTsv(session.attributes)));
  return encoded(lines, SESSION_ROW_TSV_COLUMNS);
}
