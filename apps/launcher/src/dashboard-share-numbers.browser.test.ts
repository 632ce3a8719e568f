import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiMatchesHandNumbers } from './dashboard-test/api-answers.js';
import { chromiumAvailable, launchChromium } from './dashboard-test/chromium.js';
import { startDashboardServer, type DashboardServer } from './dashboard-test/dashboard-server.js';

// The public dashboard (/share/<hash>) over the hand-built data set of dashboard-test/seed.ts:
// every panel shows the numbers computed by hand there, which are also the API's own answers.
const hasChromium = chromiumAvailable('dashboard share numbers');

describe.skipIf(!hasChromium)('the share page shows the hand-computed numbers', () => {
  let dash: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    dash = await startDashboardServer({ name: 'dash_share_numbers' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.stop();
  });

  it('the API answers the hand-computed numbers over the seeded site', async () => {
    await expectApiMatchesHandNumbers(dash);
  });
});
