/**
 * An import row (either format, already mapped to the `sightline` shape) → a staged
 * row, through the same vocabulary as live traffic: browser/OS/device names as the
 * UA step names them, versions as the file writes them (SEMANTICS: `56` stays `56`,
 * `17.4.1` stays `17.4.1`), source from utm_source or the referrer,
 * channel from the GA4 grouping when the row names none.
 */
import {
  copySessionAttributes,
  IMPORT_EARLIEST,
  IMPORT_FUTURE_SLACK_MS,
  importTimestampMs,
  SCROLL_DEPTH_NONE,
  STATUS_CODE_NONE,
  type ImportRow,
} from '@sightline/events-schema';
import { classifyChannel } from '../enrich/channel.js';
import { resolveSource } from '../enrich/source.js';
import { BROWSER_NAMES, MOBILE_APPS, OS_NAMES } from '../enrich/user-agent.js';
import { clickhouseTime, type StagedRow } from './staged-row.js';

/** Names other tools use that the UA step's tables do not hold. */
const EXTRA_BROWSER_NAMES: Record<string, string> = { Edge: 'Microsoft Edge', 'Safari (in-app)': 'Mobile App', 'Android Webview': 'Mobile App' };
const EXTRA_OS_NAMES: Record<string, string> = { Macintosh: 'Mac', 'OS X': 'Mac', 'Mac OS X': 'Mac', ChromeOS: 'Chrome OS' };
const DEVICES: Record<string, string> = {
  mobile: 'Mobile',
  smartphone: 'Mobile',
  phablet: 'Mobile',
  phone: 'Mobile',
  wearable: 'Mobile',
  tablet: 'Tablet',
  desktop: 'Desktop',
  'smart tv': 'Desktop',
  tv: 'Desktop',
  smarttv: 'Desktop',
  console: 'Desktop',
};

export function browserName(raw: string): string {
  const name = raw.trim();
  if (MOBILE_APPS.has(name)) return 'Mobile App';
  return EXTRA_BROWSER_NAMES[name] ?? BROWSER_NAMES[name] ?? name;
}

export function osName(raw: string): string {
  const name = raw.trim();
  return EXTRA_OS_NAMES[name] ?? OS_NAMES[name] ?? name;
}

export function deviceName(raw: string): string {
  const name = raw.trim();
  return DEVICES[name.toLowerCase()] ?? name;
}

/** The version as written, without a repeated OS name: "iOS 17.1.2" → "17.1.2", "Windows 10" → "10". */
export function osVersion(os: string, rawOs: string, version: string): string {
  let v = version.trim();
  for (const prefix of [rawOs.trim(), os]) if (prefix && v.toLowerCase().startsWith(`${prefix.toLowerCase()} `)) v = v.slice(prefix.length + 1).trim();
  return v;
}

function referrerHostOf(referrer: string): string {
  try {
    return new URL(referrer).hostname.toLowerCase();
  } catch {
    return referrer.split('/')[0]!.toLowerCase();
  }
}

export type Normalised = { ok: true; row: StagedRow; ms: number } | { ok: false; reason: string };

export function normaliseRow(row: ImportRow, ids: { importId: number; siteId: number; line: number; replica?: number }, now: number): Normalised {
  const ms = importTimestampMs(row.timestamp);
  if (ms < IMPORT_EARLIEST) return { ok: false, reason: 'timestamp is before 2000-01-01' };
  if (ms > now + IMPORT_FUTURE_SLACK_MS) return { ok: false, reason: 'timestamp is in the future' };
  const hostname = row.hostname
    .trim()
    .toLowerCase()
    .replace(/^www\./, '');
  // a referrer given as a URL is stored like live traffic's (host + path, no query); same-host referrers are no source
  const resolved = /^https?:\/\//i.test(row.referrer)
    ? resolveSource({ referrer: row.referrer, pageUrl: `https://${hostname || 'invalid'}${row.pathname}`, pageHost: hostname })
    : undefined;
  const referrer = resolved ? resolved.referrer : row.referrer;
  const source = row.source || row.utm_source || resolved?.source || '';
  const channel =
    row.channel ||
    classifyChannel({
      source,
      referrerHost: referrer ? (resolved?.referrer_host ?? referrerHostOf(referrer)) : '',
      utm_source: row.utm_source,
      utm_medium: row.utm_medium,
      utm_campaign: row.utm_campaign,
      click_id: row.click_id,
    });
  const os = osName(row.os);
  const propKeys = Object.keys(row.props);
  const staged: StagedRow = copySessionAttributes(
    {
      import_id: ids.importId,
      site_id: ids.siteId,
      replica: ids.replica ?? 0,
      line: ids.line,
      visitor_key: row.visitor_id,
      timestamp: clickhouseTime(ms),
      name: row.name,
      hostname,
      pathname: row.pathname,
      prop_keys: propKeys,
      prop_values: propKeys.map((k) => String(row.props[k])),
      engagement_ms: row.engagement_ms ?? 0,
      scroll_depth: row.scroll_depth ?? SCROLL_DEPTH_NONE,
      status_code: row.status_code ?? STATUS_CODE_NONE,
    },
    row,
  );
  // every attribute as the line gives it (the catalogue's import schema checked it), but these, in live traffic's vocabulary
  staged.referrer = referrer;
  staged.source = source;
  staged.channel = channel;
  staged.browser = browserName(row.browser);
  staged.browser_version = row.browser_version.trim();
  staged.os = os;
  staged.os_version = osVersion(os, row.os, row.os_version);
  staged.device = deviceName(row.device);
  return { ok: true, ms, row: staged };
}
