import { createSiteSuite } from '../sites/create-site.suite.js';
import { listAndGetSitesSuite } from '../sites/list-and-get-sites.suite.js';
import { updateSiteSuite } from '../sites/update-site.suite.js';
import { deleteSiteSuite } from '../sites/delete-site.suite.js';
import { membersSuite } from '../members/members.suite.js';
import { goalsSuite } from '../goals/goals.suite.js';
import { funnelsSuite } from '../funnels/funnels.suite.js';
import { annotationsSuite } from '../annotations/annotations.suite.js';
import { auditTrailSuite } from '../audit/audit-trail.suite.js';
import { idempotencyKeySuite } from '../idempotency/idempotency-key.suite.js';
import { reachSuite } from '../access/reach.suite.js';
import { widgetKeysSuite } from '../widgets/widget-keys.suite.js';
import type { SitesSuite } from './sites-suite.js';

/** Every sites feature suite, in the order they run on each database (sites.pglite.test.ts and sites.postgres.test.ts). */
export const SITES_FEATURE_SUITES: ReadonlyArray<(suite: SitesSuite) => void> = [
  createSiteSuite,
  listAndGetSitesSuite,
  updateSiteSuite,
  deleteSiteSuite,
  membersSuite,
  goalsSuite,
  funnelsSuite,
  annotationsSuite,
  auditTrailSuite,
  idempotencyKeySuite,
  reachSuite,
  widgetKeysSuite,
];
