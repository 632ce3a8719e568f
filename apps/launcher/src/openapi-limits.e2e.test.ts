import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { TRACKER_MAX_PROPS } from '@sightline/events-schema';
import { OTP_MAX_FAILED_ATTEMPTS, REGISTRATION_LIMITS } from '@sightline/identity';
import { KEY_NAME_MAX_CHARS } from '@sightline/permissions';
import {
  ALL_SHAPE_METRICS,
  DIMENSIONS,
  EARLIEST_DATE,
  FILTER_FIELDS,
  FILTER_OPERATORS,
  LATEST_DATE,
  PROP_KEY_MAX,
  PROPS_PREFIX,
  propsDimension,
} from '@sightline/query';
import { QUERY_LIMITS } from '@sightline/query-contract';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';

// Users have the served OpenAPI document and the README, not our spec: both must say
// what the services enforce. The services' own validators and catalogues are the
// reference; the served document (and README's table) is held to them here.
const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const TIME_DIMENSIONS = ['time', 'time:minute', 'time:hour', 'time:day', 'time:week', 'time:month'];

type Schema = Record<string, any>;

/** `| dims | metrics |` rows of a Markdown table → dimension → its metrics (the aggregate row as `none`). */
function metricsTable(markdown: string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of markdown.split('\n')) {
    const cells = /^\| (.+) \| (.+) \|$/.exec(line.trim());
    if (!cells || cells[1] === 'dimension' || cells[1]!.startsWith('---')) continue;
    const names = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const dimensions = cells[1]!.startsWith('none') ? ['none', ...names(cells[1]!)] : names(cells[1]!);
    for (const dimension of dimensions) table.set(dimension, names(cells[2]!));
  }
  return table;
}

/** The service's catalogue as the same map. */
function catalogueTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const dimension of ['none', ...TIME_DIMENSIONS]) table.set(dimension, [...ALL_SHAPE_METRICS]);
  for (const [dimension, spec] of Object.entries(DIMENSIONS)) table.set(dimension, Object.keys(spec.metrics));
  table.set(`${PROPS_PREFIX}<key>`, Object.keys(propsDimension.metrics));
  return table;
}

/** Every `description` string in the document. */
function descriptions(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) descriptions(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'description' && typeof item === 'string') found.push(item);
      else descriptions(item, found);
    }
  }
  return found;
}

describe('the OpenAPI document and README say what the server enforces', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;
  let document: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
  const bodyOf = (path: string, method = 'post'): Schema => {
    const schema = document.paths[path]![method]!.requestBody.content['application/json'].schema as Schema;
    return schema.$ref ? document.components.schemas[(schema.$ref as string).split('/').pop()!]! : schema;
  };

  beforeAll(async () => {
    dataDir = await makeTempDir();
    sightline = await startSightline({
      config: loadConfig({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1' }),
      log: createLogger({ level: 'silent' }),
      target: 'all',
    });
    document = parseYaml(await (await fetch(`${sightline.url}/api/v1/openapi.yaml`)).text()) as typeof document;
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  it('QueryRequest: no extra fields, and the query service’s limits', () => {
    const query = document.components.schemas.QueryRequest!;
    expect(query.additionalProperties).toBe(false);
    const { metrics, filters, offset, limit, date_range: dateRange, dimensions } = query.properties;
    expect([offset.minimum, offset.maximum]).toEqual([0, QUERY_LIMITS.offsetMax]);
    expect(metrics.maxItems).toBe(QUERY_LIMITS.metrics);
    expect(filters.maxItems).toBe(QUERY_LIMITS.filters);
    const filter = filters.items;
    expect(filter.additionalProperties).toBe(false);
    expect([...filter.properties.field.enum].sort()).toEqual(Object.keys(FILTER_FIELDS).sort());
    expect(filter.properties.operator.enum).toEqual([...FILTER_OPERATORS]);
    expect([filter.properties.values.maxItems, filter.properties.values.items.maxLength]).toEqual([QUERY_LIMITS.values, QUERY_LIMITS.valueLength]);
    expect(limit.description).toContain(`default ${QUERY_LIMITS.limitDefault}, clamped to 1..${QUERY_LIMITS.limitMax}`);
    expect(dateRange.description).toContain(`from ${EARLIEST_DATE} to ${LATEST_DATE}`);
    expect(dimensions.description).toContain(`up to ${PROP_KEY_MAX} characters`);
  });

  it('carries the metrics each dimension computes, in the document and in README.md', () => {
    const expected = catalogueTable();
    const fromDocument = metricsTable(document.components.schemas.QueryRequest!.properties.metrics.description as string);
    expect(Object.fromEntries(fromDocument)).toEqual(Object.fromEntries(expected));
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const marker = readme.indexOf('<!-- query-metrics-table');
    expect(marker).toBeGreaterThan(0);
    const readmeTable = readme.slice(marker).split('\n\n')[0]!;
    expect(Object.fromEntries(metricsTable(readmeTable))).toEqual(Object.fromEntries(expected));
    for (const field of Object.keys(FILTER_FIELDS)) expect(readme, `README names filter field ${field}`).toContain(`\`${field}\``);
  });

  it('lists the screen attribute: the visit:screen breakdown, the screen filter field, the tracker’s w', () => {
    const query = document.components.schemas.QueryRequest!;
    expect(query.properties.filters.items.properties.field.enum).toContain('screen');
    expect(metricsTable(query.properties.metrics.description as string).get('visit:screen')).toEqual(['visitors', 'visit_duration', 'bounce_rate']);
    const w = bodyOf('/api/event').properties.w as Schema;
    const width = ((w.anyOf as Schema[] | undefined) ?? [w]).find((s) => s.type === 'integer')!;
    expect([width.minimum, width.maximum]).toEqual([0, 100_000]);
    expect(w.description ?? width.description).toContain('Viewport width');
  });

  it('the tracker event, key names and registration: the limits the validators apply', () => {
    const props = (bodyOf('/api/event').properties.p.anyOf as Schema[]).find((s) => s.type === 'object')!;
    expect(props.maxProperties).toBe(TRACKER_MAX_PROPS);
    const verify = bodyOf('/auth/verify-otp');
    expect(verify.required).toContain('key_name');
    expect([verify.properties.key_name.minLength, verify.properties.key_name.maxLength]).toEqual([1, KEY_NAME_MAX_CHARS]);
    const createKey = bodyOf('/keys');
    expect([createKey.properties.name.minLength, createKey.properties.name.maxLength]).toEqual([1, KEY_NAME_MAX_CHARS]);
    const per = (windowMs: number) => ({ 60_000: 'minute', 3_600_000: 'hour' })[windowMs];
    const sendOtp = document.paths['/auth/send-otp']!.post!.description as string;
    const verifyOtp = document.paths['/auth/verify-otp']!.post!.description as string;
    expect(sendOtp).toContain(`${REGISTRATION_LIMITS.codesPerAddress.max} codes per address per ${per(REGISTRATION_LIMITS.codesPerAddress.windowMs)}`);
    expect(sendOtp).toContain(`${REGISTRATION_LIMITS.codesPerIp.max} codes per IP address per ${per(REGISTRATION_LIMITS.codesPerIp.windowMs)}`);
    for (const text of [sendOtp, verifyOtp])
      expect(text).toContain(`${REGISTRATION_LIMITS.requestsPerIp.max} requests per IP address per ${per(REGISTRATION_LIMITS.requestsPerIp.windowMs)}`);
    expect(verifyOtp).toContain(`after ${OTP_MAX_FAILED_ATTEMPTS} wrong tries`);
  });

  it('points at no document that is not in the repository', () => {
    const texts = descriptions(document);
    expect(texts.length).toBeGreaterThan(100);
    const missing = texts
      .flatMap((text) => [...text.matchAll(/\b([\w./-]+\.md)\b/g)].map((m) => m[1]!))
      .filter((file) => !existsSync(path.join(REPO_ROOT, file)));
    expect(missing).toEqual([]);
    // our product documents (the spec, DESIGN, SEMANTICS) are not shipped with the code
    expect(texts.filter((text) => /\b(the spec|spec’s|spec's|DESIGN|SEMANTICS)\b/.test(text))).toEqual([]);
  });
});
