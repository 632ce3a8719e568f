import { SETTINGS_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeSettingsSuites } from './test-support/settings-suite.js';

// Every settings feature suite on PGlite.
describeSettingsSuites('PGlite', SETTINGS_FEATURE_SUITES);
