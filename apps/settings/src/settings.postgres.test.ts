import { SETTINGS_FEATURE_SUITES } from './test-support/feature-suites.js';
import { describeSettingsSuites } from './test-support/settings-suite.js';

// Every settings feature suite on PostgreSQL (a fresh database per run, dropped afterwards; concurrent calls really run in parallel).
describeSettingsSuites('PostgreSQL', SETTINGS_FEATURE_SUITES);
