import { AUDIT_FIELD_BOUNDS as AUDIT_BOUNDS, clipAuditText, SETTINGS_AUDIT_ACTIONS } from '@sightline/audit';
import { SUBJECTS } from '@sightline/bus';
import type { Queryable } from '@sightline/db';
import { ApiError } from '@sightline/errors';
import type { commonV1 } from '@sightline/proto';
import { enqueueMessage, type SettingsChangedPayload, type SettingsKind } from './outbox/outbox.js';

export const ACTIONS: Record<SettingsKind, string> = SETTINGS_AUDIT_ACTIONS;

/** The site id the gateway resolved: a positive safe integer, else 400. */
export function siteIdOf(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new ApiError('invalid_request', 'site_id must be a positive integer.');
  return value;
}

export interface AuditSource {
  account_id: number;
  key_id: string;
  ip: string;
  user_agent: string;
  request_id: string;
}

/**
 * Who made a write and from where (the gateway's actor and audit context, the same
 * pair the sites service gets): an actor with an account is required; texts are cut
 * to the audit trail's bounds.
 */
export function auditOf(actor: commonV1.Actor | undefined, audit: commonV1.AuditContext | undefined): AuditSource {
  if (!actor || !Number.isSafeInteger(actor.accountId) || actor.accountId <= 0) {
    // as the sites service answers: a write nobody is named for is unauthenticated, not malformed
    throw new ApiError('unauthorized', 'An actor with a positive account_id is required on every write.');
  }
  return {
    account_id: actor.accountId,
    key_id: clipAuditText(actor.keyId, AUDIT_BOUNDS.keyId),
    ip: clipAuditText(audit?.ip, AUDIT_BOUNDS.ip),
    user_agent: clipAuditText(audit?.userAgent, AUDIT_BOUNDS.userAgent),
    request_id: clipAuditText(audit?.requestId, AUDIT_BOUNDS.requestId),
  };
}

/** A list field of at most `max` entries, each a string of at most `maxLength` characters, else 400 naming the field. */
export function boundedList(field: string, values: readonly string[], max: number, maxLength: number): string[] {
  if (values.length > max) throw new ApiError('invalid_request', `${field} holds ${values.length} entries; at most ${max} are allowed.`);
  for (const value of values) {
    if (value.length > maxLength) throw new ApiError('invalid_request', `${field} has an entry longer than ${maxLength} characters.`);
  }
  return [...values];
}

/** Quotes a client value in an error message, cut short. */
export const quote = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

export interface SiteSettingsRow {
  site_id: number;
  tracking_features: string[] | null;
  tracking_version: number;
  public_dashboard: boolean | null;
}

/**
 * Creates the site's settings row if needed and locks it: one site's writes take
 * turns inside their transactions (versions and list replacements are exact).
 */
export async function lockSite(tx: Queryable, siteId: number, now: Date): Promise<SiteSettingsRow> {
  await tx.query('INSERT INTO settings.site_settings (site_id, updated_at) VALUES ($1, $2) ON CONFLICT (site_id) DO NOTHING', [siteId, now]);
  const { rows } = await tx.query<SiteSettingsRow>(
    'SELECT site_id, tracking_features, tracking_version, public_dashboard FROM settings.site_settings WHERE site_id = $1 FOR UPDATE',
    [siteId],
  );
  return rows[0]!;
}

export async function readSite(tx: Queryable, siteId: number): Promise<SiteSettingsRow | undefined> {
  const { rows } = await tx.query<SiteSettingsRow>(
    'SELECT site_id, tracking_features, tracking_version, public_dashboard FROM settings.site_settings WHERE site_id = $1',
    [siteId],
  );
  return rows[0];
}

/**
 * Writes the write's settings.changed message (with its audit entry) into the
 * outbox, in the write's transaction. What consumers act on goes in the payload
 * proper (`features` for kind tracking: script-builder pre-builds it); `details`
 * are for the audit trail only.
 */
export async function announce(
  tx: Queryable,
  siteId: number,
  kind: SettingsKind,
  version: number,
  audit: AuditSource,
  details: Record<string, unknown>,
  now: Date,
  state: { features?: string[] } = {},
): Promise<void> {
  const payload: SettingsChangedPayload = {
    site_id: siteId,
    kind,
    version,
    changed_at: now.toISOString(),
    ...(state.features ? { features: [...state.features] } : {}),
    audit: { action: ACTIONS[kind], ...audit, details },
  };
  await enqueueMessage(tx, SUBJECTS.settingsChanged, payload, now);
  await tx.query('UPDATE settings.site_settings SET updated_at = $2 WHERE site_id = $1', [siteId, now]);
}
