/**
 * Where the bus reports what callers cannot see from a return value: messages given
 * up after maxDeliver, handler crashes of broadcast subscribers, journal repairs.
 * Shaped so a pino logger adapts in one line: `(level, msg, f) => log[level](f, msg)`.
 */
export type BusLogLevel = 'warn' | 'error';

export type BusLogger = (level: BusLogLevel, message: string, fields?: Record<string, unknown>) => void;

export const consoleBusLogger: BusLogger = (level, message, fields) => {
  console[level](`[bus] ${message}`, fields ?? '');
};
