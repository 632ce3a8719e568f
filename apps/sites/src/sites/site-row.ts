import type { sitesV1 } from '@sightline/proto';
import type { SitesSettings } from '../sites-context.js';
import { rfc3339 } from '@sightline/runtime';

/** A `sites.sites` row as the handlers read it. */
export interface SiteRow {
  id: number;
  name: string;
  hash: string;
  tracking_key: string;
  timezone: string;
  week_start: number;
  hobby: boolean;
  owner_account_id: number;
  created_at: Date;
}

export const SITE_COLUMNS = 'id, name, hash, tracking_key, timezone, week_start, hobby, owner_account_id, created_at';
/** the same columns of `sites.sites` aliased `s` */
export const SITE_COLUMNS_S = SITE_COLUMNS.split(', ')
  .map((c) => `s.${c}`)
  .join(', ');

/** `${publicUrl}/js/<tracking_key>.js`: built from the token, never from the id. */
export function scriptUrlOf(settings: Pick<SitesSettings, 'publicUrl'>, trackingKey: string): string {
  return `${settings.publicUrl}/js/${trackingKey}.js`;
}

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The install snippet: one deferred script tag. */
export function snippetOf(scriptUrl: string): string {
  return `<script defer src="${escapeAttribute(scriptUrl)}"></script>`;
}

export function toSite(row: SiteRow, settings: Pick<SitesSettings, 'publicUrl'>): sitesV1.Site {
  const scriptUrl = scriptUrlOf(settings, row.tracking_key);
  return {
    siteId: row.id,
    name: row.name,
    hash: row.hash,
    timezone: row.timezone,
    weekStart: row.week_start,
    hobby: row.hobby,
    scriptUrl,
    snippet: snippetOf(scriptUrl),
    trackingKey: row.tracking_key,
    ownerAccountId: row.owner_account_id,
    createdAt: rfc3339(row.created_at),
  };
}
