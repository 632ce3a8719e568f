import { ApiError } from '@sightline/errors';
import type { settingsV1 } from '@sightline/proto';
import { bundleName, isFeatureId, normalizeSelection, PRESETS, unmetRequirement, type FeatureId } from '@sightline/tracker-features';
import type { SettingsContext } from './settings-context.js';
import { announce, auditOf, boundedList, lockSite, quote, readSite, siteIdOf } from './write.js';

const MAX_FEATURES = 100;
const MAX_FEATURE_ID_LENGTH = 100;

/** A site that never changed its selection has the catalogue defaults (the standard preset), version 1. */
export const DEFAULT_SELECTION: readonly FeatureId[] = normalizeSelection(PRESETS.standard);

const answer = (siteId: number, version: number, selection: readonly FeatureId[]): settingsV1.TrackingSettings => ({
  siteId,
  version,
  bundle: bundleName(selection),
  enabled: [...selection],
});

/** Stored ids, normalized (an id the catalogue dropped since is ignored). */
const storedSelection = (features: string[] | null): FeatureId[] =>
  features === null ? [...DEFAULT_SELECTION] : normalizeSelection(features.filter(isFeatureId));

export async function getTracking(ctx: SettingsContext, request: settingsV1.GetTrackingRequest): Promise<settingsV1.TrackingSettings> {
  const siteId = siteIdOf(request.siteId);
  const row = await readSite(ctx.db, siteId);
  return answer(siteId, row?.tracking_version ?? 1, storedSelection(row?.tracking_features ?? null));
}

/** Replaces the selection wholesale: unknown ids and unmet dependencies are refused; locked features stay on. */
export async function putTracking(ctx: SettingsContext, request: settingsV1.PutTrackingRequest): Promise<settingsV1.TrackingSettings> {
  const siteId = siteIdOf(request.siteId);
  const audit = auditOf(request.actor, request.audit);
  const wanted = boundedList('features', request.features, MAX_FEATURES, MAX_FEATURE_ID_LENGTH);
  const unknown = wanted.find((id) => !isFeatureId(id));
  if (unknown !== undefined) throw new ApiError('invalid_request', `Unknown feature ${quote(unknown)} in features.`);
  const selection = normalizeSelection(wanted as FeatureId[]);
  const unmet = unmetRequirement(selection);
  if (unmet) {
    throw new ApiError(
      'invalid_request',
      `Feature "${unmet.feature}" requires "${unmet.requires}": enable "${unmet.requires}" too, or drop "${unmet.feature}".`,
    );
  }
  const now = ctx.clock();
  const version = await ctx.db.transaction(async (tx) => {
    const row = await lockSite(tx, siteId, now);
    const next = row.tracking_version + 1;
    await tx.query('UPDATE settings.site_settings SET tracking_features = $2, tracking_version = $3 WHERE site_id = $1', [siteId, selection, next]);
    await announce(tx, siteId, 'tracking', next, audit, { features: selection, version: next }, now, { features: selection });
    return next;
  });
  ctx.kickOutbox();
  return answer(siteId, version, selection);
}
