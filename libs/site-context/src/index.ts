export { SiteContextCache, type SiteContextCacheOptions } from './site-context-cache.js';
export { loadSiteContext, type SiteContextClients } from './load-site-context.js';
export type { TrackedSite } from './tracked-site.js';
