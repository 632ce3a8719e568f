/**
 * Browser, OS and device of a visit from its User-Agent (ua-parser-js 1.x, MIT), in
 * the names of SEMANTICS "Device from the UA" (Plausible's / Matomo's vocabulary).
 * Unknown values are '' (the query layer shows `(not set)`); a browser or OS outside
 * the vocabulary keeps the parser's name (Vivaldi, Fedora, …). The UA is never stored.
 *
 * Versions are `major.minor`, and only when the UA carries both parts (Chrome/120.0.0.0
 * → 120.0; Android 14 → ''). Windows is the exception: its version is the release name
 * the parser derives from the NT number (NT 10.0 → 10, NT 6.1 → 7, NT 5.1 → XP).
 */
import { UAParser } from 'ua-parser-js';

export interface UserAgentInfo {
  browser: string;
  browser_version: string;
  os: string;
  os_version: string;
  device: 'Mobile' | 'Tablet' | 'Desktop' | '';
}

/** ua-parser-js browser names → Sightline's. */
export const BROWSER_NAMES: Record<string, string> = {
  'Mobile Safari': 'Safari',
  'Mobile Chrome': 'Chrome',
  'Chrome Headless': 'Chrome',
  'Mobile Firefox': 'Firefox',
  Edge: 'Microsoft Edge',
  EdgeHTML: 'Microsoft Edge',
  'Opera Mini': 'Opera',
  'Opera Mobi': 'Opera',
  'Opera Touch': 'Opera',
  'Opera GX': 'Opera',
  'Opera Coast': 'Opera',
  Yandex: 'Yandex Browser',
  UCBrowser: 'UC Browser',
  UC: 'UC Browser',
  IE: 'Internet Explorer',
  IEMobile: 'Internet Explorer',
  'Android Browser': 'Android Browser',
  'Samsung Browser': 'Samsung Browser',
  'Samsung Internet': 'Samsung Browser',
};

/** In-app browsers and webviews: the visit came through an app, not a browser. */
export const MOBILE_APPS = new Set([
  'Chrome WebView',
  'WebKit',
  'Facebook',
  'Instagram',
  'TikTok',
  'WeChat',
  'Line',
  'KAKAOTALK',
  'Snapchat',
  'Twitter',
  'LinkedIn',
  'GSA',
  'Klarna',
  'Alipay',
  'Zalo',
  'Threads',
]);

export const OS_NAMES: Record<string, string> = {
  'Mac OS': 'Mac',
  macOS: 'Mac',
  Linux: 'GNU/Linux',
  'Chromium OS': 'Chrome OS',
  'Chrome OS': 'Chrome OS',
  KAIOS: 'KaiOS',
  KaiOS: 'KaiOS',
  'Windows Phone': 'Windows Phone',
  'Windows Mobile': 'Windows Phone',
  'Windows Phone OS': 'Windows Phone',
  HarmonyOS: 'HarmonyOS',
};

const CHROMEBOOK = /\bChromebook\b/;

/** Plain `major.minor` when the version has both numeric parts, else ''. */
export function majorMinor(version: string | undefined): string {
  const match = version ? /^(\d+)[._](\d+)/.exec(version) : null;
  return match ? `${match[1]}.${match[2]}` : '';
}

export function parseUserAgent(ua: string): UserAgentInfo {
  // 1024 is what the gateway accepts; the parser is linear but there is no reason to read more
  const { browser, os, device } = new UAParser(ua.slice(0, 1024)).getResult();
  const inApp = browser.name !== undefined && MOBILE_APPS.has(browser.name);
  // Android apps on a Chromebook say "Android …; <maker> Chromebook": the machine runs Chrome OS
  const chromebook = CHROMEBOOK.test(ua);
  const osName = chromebook ? 'Chrome OS' : os.name ? (OS_NAMES[os.name] ?? os.name) : '';
  return {
    browser: inApp ? 'Mobile App' : browser.name ? (BROWSER_NAMES[browser.name] ?? browser.name) : '',
    browser_version: inApp ? '' : majorMinor(browser.version),
    os: osName,
    os_version: chromebook ? '' : osName === 'Windows' ? (os.version ?? '') : majorMinor(os.version),
    device: chromebook ? 'Desktop' : deviceOf(device.type, osName, ua),
  };
}

function deviceOf(type: string | undefined, os: string, ua: string): UserAgentInfo['device'] {
  switch (type) {
    case 'mobile':
    case 'wearable':
      return 'Mobile';
    case 'tablet':
      return 'Tablet';
    case undefined:
      // An unlisted Android model: Android's convention is "Mobile" in phones' UAs only
      if (os === 'Android') return / Mobile\b/.test(ua) ? 'Mobile' : 'Tablet';
      if (os === 'KaiOS' || os === 'Windows Phone') return 'Mobile';
      return 'Desktop';
    default:
      return 'Desktop'; // smarttv, console, embedded, xr: big screens
  }
}
