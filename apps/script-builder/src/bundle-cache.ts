import { LRUCache } from 'lru-cache';
import { buildBundle, scriptTemplate, type ScriptTemplate } from '@sightline/tracker';
import { normalizeSelection, type FeatureId } from '@sightline/tracker-features';

export interface CachedBundle {
  features: FeatureId[];
  template: ScriptTemplate;
  buildMs: number;
}

/**
 * Built bundles by normalized selection (LRU, bounded). A build in flight is
 * shared by every caller asking for the same selection.
 */
export class BundleCache {
  private readonly cache: LRUCache<string, Promise<CachedBundle>>;
  builds = 0;

  constructor(max = 64) {
    this.cache = new LRUCache({ max });
  }

  get(selection: readonly FeatureId[]): Promise<CachedBundle> {
    const features = normalizeSelection(selection);
    const key = features.join(',');
    let bundle = this.cache.get(key);
    if (!bundle) {
      this.builds += 1;
      bundle = buildBundle(features).then((built) => ({ features, template: scriptTemplate(built.code), buildMs: built.buildMs }));
      bundle.catch(() => this.cache.delete(key));
      this.cache.set(key, bundle);
    }
    return bundle;
  }

  get size(): number {
    return this.cache.size;
  }
}
