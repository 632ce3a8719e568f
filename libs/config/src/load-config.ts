import path from 'node:path';
import { ENV_SCHEMA, type Env } from './env-schema.js';

/** Configuration after validation and derivation; apps take slices of it. */
export interface Config extends Env {
  /** PUBLIC_URL, or the local listen address when unset; never ends with `/` */
  publicUrl: string;
  /** TERMS_URL, or `<publicUrl>/terms` (the bundled default page) when unset */
  termsUrl: string;
  /** SIGHTLINE_DATA_DIR resolved to an absolute path */
  dataDir: string;
  /** DEFAULT_TIMEZONE, or the server's own time zone */
  defaultTimezone: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses and validates the environment once. Empty strings count as unset, so
 * `FOO=` in a .env file does not turn into an invalid value. Throws ConfigError
 * naming every bad variable at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(ENV_SCHEMA.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = ENV_SCHEMA.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const values = parsed.data;
  const publicUrl = (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, '');
  const defaultTimezone = values.DEFAULT_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'Etc/UTC';
  const termsUrl = values.TERMS_URL ?? `${publicUrl}/terms`;
  return { ...values, publicUrl, termsUrl, dataDir: path.resolve(cwd, values.SIGHTLINE_DATA_DIR), defaultTimezone };
}
