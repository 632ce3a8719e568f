import type { ServiceDeps } from '@sightline/runtime';
import type { IngestPorts } from './pipeline/ports.js';

/** Raised while a real port is not plugged in yet: ingest must not count events with a stand-in. */
export class IngestPortsMissingError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(`ingest pipeline not wired: no production ${missing.join(', ')} (see apps/ingest/src/wiring.ts)`);
    this.name = 'IngestPortsMissingError';
  }
}

/**
 * THE one place where production implementations of the pipeline's ports are
 * chosen. To plug in at merge:
 *   sites    ← libs/site-context (tracking key → SiteContext, cached, invalidated on settings.changed/site.deleted)
 *   enricher ← apps/ingest/src/enrich (parseUserAgent, detectBot, isReferrerSpam, parsePage, resolveSource, classifyChannel)
 *   geo      ← libs/geo openGeoLookup()
 */
export async function productionPorts(deps: ServiceDeps): Promise<IngestPorts> {
  const missing = ['sites (libs/site-context)', 'enricher (src/enrich)', 'geo (libs/geo)'];
  void deps;
  throw new IngestPortsMissingError(missing);
}
