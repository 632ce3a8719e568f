import { trackingSuite } from '../tracking.suite.js';
import { hostnamesSuite } from '../hostnames.suite.js';
import { blockedIpsSuite } from '../blocked-ips.suite.js';
import { countriesSuite } from '../countries.suite.js';
import { countingFiltersSuite } from '../counting-filters.suite.js';
import { publicDashboardSuite } from '../public-dashboard.suite.js';
import { settingsChangedSuite } from '../outbox/settings-changed.suite.js';
import { siteDeletedSuite } from '../site-deleted.suite.js';
import { writeSuite } from '../write.suite.js';
import type { SettingsSuite } from './settings-suite.js';

/** Every settings feature suite, in the order they run on each database (settings.pglite.test.ts and settings.postgres.test.ts). */
export const SETTINGS_FEATURE_SUITES: ReadonlyArray<(suite: SettingsSuite) => void> = [
  trackingSuite,
  hostnamesSuite,
  blockedIpsSuite,
  countriesSuite,
  countingFiltersSuite,
  publicDashboardSuite,
  settingsChangedSuite,
  siteDeletedSuite,
  writeSuite,
];
