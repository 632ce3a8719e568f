import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@sightline/telemetry';

/** A real service logger whose JSON lines land in `lines` instead of stdout, so tests can read what was logged. */
export function captureLog(service: string, level: 'debug' | 'info' | 'warn' = 'debug'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { log: createLogger({ level, service, destination }), lines };
}
