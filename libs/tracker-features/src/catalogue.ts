/**
 * What the tracker script can do, one entry per feature module
 * (`libs/tracker/src/features/<id>.ts`). Settings validates selections against it;
 * the script builder bundles the selected modules and measures each one's cost.
 * Feature ids are a client-visible contract (`PUT settings/tracking {features}`).
 */
export interface FeatureDefinition {
  id: FeatureId;
  label: string;
  /** always on, whatever the selection says */
  locked: boolean;
  /** on for a new site */
  default: boolean;
  /** features that must be on too */
  requires?: FeatureId[];
}

export const FEATURE_IDS = [
  'pageviews',
  'sessions',
  'utm',
  'engagement',
  'scroll',
  'outbound-links',
  'file-downloads',
  'tagged-events',
  'status-codes',
  'hash-routing',
] as const;

export type FeatureId = (typeof FEATURE_IDS)[number];

export const FEATURE_CATALOGUE: readonly FeatureDefinition[] = [
  { id: 'pageviews', label: 'Page views (page loads and SPA navigation)', locked: true, default: true },
  { id: 'sessions', label: 'Sessions across page loads (per-tab marker)', locked: false, default: true },
  { id: 'utm', label: 'Campaign parameters (UTM)', locked: false, default: true },
  { id: 'engagement', label: 'Engaged time', locked: false, default: true },
  { id: 'scroll', label: 'Scroll depth', locked: false, default: true, requires: ['engagement'] },
  { id: 'outbound-links', label: 'Outbound link clicks', locked: false, default: true },
  { id: 'file-downloads', label: 'File downloads', locked: false, default: false },
  { id: 'tagged-events', label: 'Tagged events (data-sightline-event)', locked: false, default: true },
  { id: 'status-codes', label: 'HTTP status codes (404 pages)', locked: false, default: false },
  { id: 'hash-routing', label: 'Hash-based routing (#/path)', locked: false, default: false },
];

/** Named selections; a site whose selection equals one of them reports its name as `bundle`. */
export const PRESETS: Readonly<Record<'minimal' | 'standard' | 'full', readonly FeatureId[]>> = {
  minimal: ['pageviews'],
  standard: FEATURE_CATALOGUE.filter((f) => f.default).map((f) => f.id),
  full: [...FEATURE_IDS],
};

export function isFeatureId(value: string): value is FeatureId {
  return (FEATURE_IDS as readonly string[]).includes(value);
}

/** A selection in catalogue order, locked features added, duplicates removed. */
export function normalizeSelection(selection: readonly FeatureId[]): FeatureId[] {
  const wanted = new Set<FeatureId>(selection);
  for (const feature of FEATURE_CATALOGUE) if (feature.locked) wanted.add(feature.id);
  return FEATURE_IDS.filter((id) => wanted.has(id));
}

/** The first unmet dependency of a (normalized) selection, if any. */
export function unmetRequirement(selection: readonly FeatureId[]): { feature: FeatureId; requires: FeatureId } | undefined {
  const on = new Set(selection);
  for (const feature of FEATURE_CATALOGUE) {
    if (!on.has(feature.id)) continue;
    for (const required of feature.requires ?? []) if (!on.has(required)) return { feature: feature.id, requires: required };
  }
  return undefined;
}

/** The preset name a (normalized) selection matches, or `custom`. */
export function bundleName(selection: readonly FeatureId[]): string {
  const key = normalizeSelection(selection).join(',');
  for (const [name, features] of Object.entries(PRESETS)) if (normalizeSelection(features).join(',') === key) return name;
  return 'custom';
}
