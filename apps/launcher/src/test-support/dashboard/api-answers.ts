import { expect } from 'vitest';
import { apiQuery, type DashboardServer, type QueryAnswer } from './dashboard-server.js';
import {
  BROWSERS,
  CHANGE,
  CHANNELS,
  COUNTRIES,
  DAILY,
  DEVICES,
  DIRECT_VISITORS,
  ENTRY_PAGES,
  GOAL,
  GOAL_ROW,
  HOSTILE,
  HOSTILE_PAGES,
  PLAN_PROPS,
  PREVIOUS,
  PREVIOUS_TOTALS,
  GERMANY_FILTERED,
  PRICING_CHROME_FILTERED,
  PRICING_FILTERED,
  SIGNUP_FILTERED,
  SOURCES_ONE_EACH,
  TOP_OS,
  TOP_PAGES,
  TOTALS,
  WINDOW,
} from './seed.js';

const range = [WINDOW.from, WINDOW.to];
const byDimension = (answer: QueryAnswer, dimension: string) => new Map(answer.results.map((r) => [r.dimensions![dimension]!, r]));

/**
 * The API's own answers over the seeded site agree with seed.ts's hand-computed ones:
 * the page is then checked against both, so a wrong page and a wrong engine are told apart.
 */
export async function expectApiMatchesHandNumbers(dash: DashboardServer): Promise<void> {
  const totals = await apiQuery(dash, { metrics: Object.keys(TOTALS), date_range: range, compare: 'previous_period' });
  expect(totals.has_import).toBe(true);
  expect(totals.results[0]!.metrics).toEqual(TOTALS);
  expect(totals.results[0]!.comparison?.metrics).toEqual(PREVIOUS_TOTALS);
  expect(totals.results[0]!.comparison?.change).toEqual(CHANGE);
  const previous = await apiQuery(dash, { metrics: Object.keys(TOTALS), date_range: [PREVIOUS.from, PREVIOUS.to] });
  expect(previous.results[0]!.metrics).toEqual(PREVIOUS_TOTALS);

  const daily = await apiQuery(dash, { metrics: ['visitors', 'pageviews'], date_range: range, dimensions: ['time:day'] });
  expect(daily.results.map((r) => ({ day: r.dimensions!['time:day'], visitors: r.metrics.visitors, pageviews: r.metrics.pageviews }))).toEqual(DAILY);

  const pages = byDimension(await apiQuery(dash, { metrics: ['visitors', 'pageviews'], date_range: range, dimensions: ['event:page'] }), 'event:page');
  for (const [page, visitors, pageviews] of [...TOP_PAGES, ...HOSTILE_PAGES]) expect(pages.get(page)?.metrics, page).toMatchObject({ visitors, pageviews });
  expect(pages.size).toBe(TOP_PAGES.length + HOSTILE_PAGES.length);
  const entry = byDimension(await apiQuery(dash, { metrics: ['visits'], date_range: range, dimensions: ['visit:entry_page'] }), 'visit:entry_page');
  for (const [page, visits] of ENTRY_PAGES) expect(entry.get(page)?.metrics.visits, page).toBe(visits);

  const sources = await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:source'] });
  expect(sources.results[0]!.metrics.visitors).toBe(DIRECT_VISITORS);
  const sourceNames = sources.results.map((r) => r.dimensions!['visit:source']);
  for (const name of [...SOURCES_ONE_EACH, HOSTILE.utmSource]) expect(sourceNames).toContain(name);
  const channels = byDimension(await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:channel'] }), 'visit:channel');
  for (const [channel, visitors] of CHANNELS) expect(channels.get(channel)?.metrics.visitors).toBe(visitors);
  const referrers = await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:referrer'] });
  expect(referrers.results.map((r) => r.dimensions!['visit:referrer'])).toEqual(expect.arrayContaining([HOSTILE.javascriptReferrer, HOSTILE.controlReferrer]));

  const countries = byDimension(await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:country'] }), 'visit:country');
  for (const [code, name, visitors] of COUNTRIES) {
    expect(countries.get(code)?.metrics.visitors, code).toBe(visitors);
    expect(countries.get(code)?.labels?.['visit:country'], code).toBe(name);
  }
  const browsers = byDimension(await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:browser'] }), 'visit:browser');
  for (const [browser, visitors] of BROWSERS) expect(browsers.get(browser)?.metrics.visitors, browser).toBe(visitors);
  const devices = byDimension(await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:device'] }), 'visit:device');
  for (const [device, visitors] of DEVICES) expect(devices.get(device)?.metrics.visitors, device).toBe(visitors);
  const os = await apiQuery(dash, { metrics: ['visitors'], date_range: range, dimensions: ['visit:os'] });
  expect([os.results[0]!.dimensions!['visit:os'], os.results[0]!.metrics.visitors]).toEqual(TOP_OS);

  const goals = await apiQuery(dash, { metrics: ['visitors', 'events', 'conversion_rate'], date_range: range, dimensions: ['event:goal'] });
  expect(goals.results).toEqual([{ dimensions: { 'event:goal': GOAL }, metrics: GOAL_ROW }]);
  const plans = await apiQuery(dash, {
    metrics: ['visitors'],
    date_range: range,
    dimensions: ['event:props:plan'],
    filters: [{ field: 'event', operator: 'is', values: [GOAL] }],
  });
  expect(plans.results.map((r) => [r.dimensions!['event:props:plan'], r.metrics.visitors])).toEqual(PLAN_PROPS);
  const names = await apiQuery(dash, { metrics: ['visitors', 'events'], date_range: range, dimensions: ['event:name'] });
  expect(names.results.map((r) => r.dimensions!['event:name']).sort()).toEqual([GOAL, HOSTILE.eventName].sort());

  const pricing = await apiQuery(dash, {
    metrics: ['visitors', 'pageviews'],
    date_range: range,
    filters: [{ field: 'page', operator: 'is', values: ['/pricing'] }],
  });
  expect(pricing.results[0]!.metrics).toEqual(PRICING_FILTERED);
  const germany = await apiQuery(dash, {
    metrics: ['visitors', 'visits', 'pageviews'],
    date_range: range,
    filters: [{ field: 'country', operator: 'is', values: ['DE'] }],
  });
  expect(germany.results[0]!.metrics).toEqual(GERMANY_FILTERED);
  const signup = await apiQuery(dash, {
    metrics: ['visitors', 'visits', 'pageviews'],
    date_range: range,
    filters: [{ field: 'event', operator: 'is', values: [GOAL] }],
  });
  expect(signup.results[0]!.metrics).toEqual(SIGNUP_FILTERED);
  const pricingChrome = await apiQuery(dash, {
    metrics: ['visitors', 'pageviews'],
    date_range: range,
    filters: [
      { field: 'page', operator: 'is', values: ['/pricing'] },
      { field: 'browser', operator: 'is', values: ['Chrome'] },
    ],
  });
  expect(pricingChrome.results[0]!.metrics).toEqual(PRICING_CHROME_FILTERED);
}
