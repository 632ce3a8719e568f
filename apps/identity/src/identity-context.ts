import type { Bus } from '@sightline/bus';
import type { Config } from '@sightline/config';
import type { Db } from '@sightline/db';
import type { Mailer } from '@sightline/mailer';
import type { Clock } from '@sightline/runtime';
import type { Logger } from '@sightline/telemetry';

/** What the identity handlers work with: the service deps, all present, and the settings they read. */
export interface IdentityContext {
  db: Db;
  bus: Bus;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  settings: IdentitySettings;
}

export interface IdentitySettings {
  secretKey: string;
  termsVersion: string;
  /** where the terms of service are published (linked from the sign-in mail) */
  termsUrl: string;
  keysPerAccount: number;
  trialDays: number;
  planGraceDays: number;
  publicUrl: string;
}

export function identitySettings(config: Config): IdentitySettings {
  if (!config.SECRET_KEY) {
    throw new Error('identity needs SECRET_KEY (at least 32 characters, the same on every replica): it keys the hashes of one-time codes');
  }
  return {
    secretKey: config.SECRET_KEY,
    termsVersion: config.TERMS_VERSION,
    termsUrl: config.termsUrl,
    keysPerAccount: config.KEYS_PER_ACCOUNT,
    trialDays: config.TRIAL_DAYS,
    planGraceDays: config.PLAN_GRACE_DAYS,
    publicUrl: config.publicUrl,
  };
}
