import { pino, type Logger, type LoggerOptions } from 'pino';
import { traceLogFields } from './log-trace-mixin.js';

export type { Logger } from 'pino';

export interface LoggerConfig {
  level: string;
  /** set when the process runs one service; in single-process mode each service's child logger names it */
  service?: string;
  /** where to write; default stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/**
 * Structured JSON logs. Secrets never reach a log line: API keys, one-time codes,
 * tokens and cookies are redacted wherever they appear in a logged object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.authorization',
  '*.token',
  '*.code_hash',
  '*.otp',
  '*.password',
  '*.secret',
];

export function createLogger(config: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: config.level,
    base: config.service ? { service: config.service } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: traceLogFields,
  };
  return config.destination ? pino(options, config.destination) : pino(options);
}
