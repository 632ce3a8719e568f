import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@sightline/telemetry';

/**
 * A real service logger whose JSON lines land in `lines` instead of stdout, so tests can
 * read what was logged; `records()` gives them parsed, as they stand when it is called.
 */
export function captureLog(
  service: string,
  level: 'debug' | 'info' | 'warn' = 'debug',
): { log: Logger; lines: string[]; records: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { log: createLogger({ level, service, destination }), lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
