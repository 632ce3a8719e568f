import { renderScript } from '@sightline/tracker';
import { FEATURE_CATALOGUE, normalizeSelection, type FeatureId } from '@sightline/tracker-features';
import type { BundleCache } from './bundle-cache.js';
import { measure, SAMPLE_SITE } from './sizes.js';

export interface MeasuredFeature {
  id: FeatureId;
  label: string;
  locked: boolean;
  default: boolean;
  requires: FeatureId[];
  /** marginal brotli bytes, see measureCatalogue */
  sizeBr: number;
}

export interface MeasuredCatalogue {
  entries: MeasuredFeature[];
  /** brotli bytes of the base bundle (locked features only) */
  baseSizeBr: number;
}

/** Brotli bytes of a selection's script with the sample site's values. */
export async function selectionSizeBr(bundles: BundleCache, selection: readonly FeatureId[]): Promise<number> {
  const bundle = await bundles.get(selection);
  return measure(renderScript(bundle.template, SAMPLE_SITE)).br;
}

/**
 * The catalogue with each feature's MEASURED marginal cost: for feature X,
 * size_br(X) = br(normalize(base ∪ requires(X) ∪ {X})) − br(normalize(base ∪ requires(X))),
 * base = the locked features, br = brotli (q11) bytes of the script rendered with
 * SAMPLE_SITE. A locked feature costs 0 (it is in every bundle; `baseSizeBr` is
 * their total). Brotli sizes do not add up exactly: a feature sharing strings with
 * others costs less next to them.
 */
export async function measureCatalogue(bundles: BundleCache): Promise<MeasuredCatalogue> {
  const base = FEATURE_CATALOGUE.filter((f) => f.locked).map((f) => f.id);
  const baseSizeBr = await selectionSizeBr(bundles, base);
  const entries: MeasuredFeature[] = [];
  for (const feature of FEATURE_CATALOGUE) {
    const requires = [...(feature.requires ?? [])];
    let sizeBr = 0;
    if (!feature.locked) {
      const without = normalizeSelection([...base, ...requires]);
      sizeBr = (await selectionSizeBr(bundles, [...without, feature.id])) - (await selectionSizeBr(bundles, without));
    }
    entries.push({ id: feature.id, label: feature.label, locked: feature.locked, default: feature.default, requires, sizeBr });
  }
  return { entries, baseSizeBr };
}
