import type { settingsV1 } from '@sightline/proto';
import type { SettingsContext } from './settings-context.js';
import { siteIdOf } from './write.js';

/**
 * The three counting filters of a site in one read (ingest's site context): hostnames,
 * blocked IPs and country codes, each list in its stored order. Each filter is read
 * in one statement, so a concurrent PUT (which replaces a filter's lists in one
 * transaction) is seen entirely or not at all.
 */
export async function getCountingFilters(ctx: SettingsContext, request: settingsV1.GetCountingFiltersRequest): Promise<settingsV1.CountingFilters> {
  const siteId = siteIdOf(request.siteId);
  const [hostnames, ips, countries] = await Promise.all([
    ctx.db.query<{ kind: 'allowed' | 'blocked'; hostname: string }>(
      'SELECT kind, hostname FROM settings.hostname_filters WHERE site_id = $1 ORDER BY kind, position',
      [siteId],
    ),
    ctx.db.query<{ address: string }>('SELECT address FROM settings.blocked_ips WHERE site_id = $1 ORDER BY position', [siteId]),
    ctx.db.query<{ kind: 'allowed' | 'blocked'; code: string }>('SELECT kind, code FROM settings.country_filters WHERE site_id = $1 ORDER BY kind, position', [
      siteId,
    ]),
  ]);
  return {
    siteId,
    allowedHostnames: hostnames.rows.filter((r) => r.kind === 'allowed').map((r) => r.hostname),
    blockedHostnames: hostnames.rows.filter((r) => r.kind === 'blocked').map((r) => r.hostname),
    blockedIps: ips.rows.map((r) => r.address),
    allowedCountries: countries.rows.filter((r) => r.kind === 'allowed').map((r) => r.code),
    blockedCountries: countries.rows.filter((r) => r.kind === 'blocked').map((r) => r.code),
  };
}
