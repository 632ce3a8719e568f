import type { Bus } from '@sightline/bus';
import type { Config } from '@sightline/config';
import type { Db } from '@sightline/db';
import type { Clock } from '@sightline/runtime';
import { toAsciiHostname } from '@sightline/address-rules';
import type { Logger } from '@sightline/telemetry';

/** What the sites handlers work with: the service deps, all present, and the settings they read. */
export interface SitesContext {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  settings: SitesSettings;
  /** asks the outbox relay to publish now (after a commit that wrote an outbox row) */
  kickOutbox(): void;
}

export interface SitesSettings {
  /** PUBLIC_URL without a trailing slash: script URLs are built from it */
  publicUrl: string;
  /** host suffixes (ASCII, lowercase) whose proper subdomains qualify for the hobby tier */
  hobbyZones: string[];
  /** IANA name given to a site created without one */
  defaultTimezone: string;
  /** SECRET_KEY: keys the widget credentials (unset: the widget RPCs answer 503) */
  secretKey?: string;
}

export function sitesSettings(config: Config): SitesSettings {
  const hobbyZones = config.HOBBY_ZONES.map((zone) => toAsciiHostname(zone.replace(/^\.+/, ''))).filter((zone): zone is string => !!zone);
  return {
    publicUrl: config.publicUrl.replace(/\/+$/, ''),
    hobbyZones,
    defaultTimezone: config.defaultTimezone,
    ...(config.SECRET_KEY ? { secretKey: config.SECRET_KEY } : {}),
  };
}
