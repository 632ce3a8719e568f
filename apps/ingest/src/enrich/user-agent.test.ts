import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { majorMinor, parseUserAgent, type UserAgentInfo } from './user-agent.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/user-agents.json', import.meta.url), 'utf8')) as {
  cases: Array<{ ua: string; expected: UserAgentInfo }>;
};

describe('parseUserAgent', () => {
  it('matches the expected names, versions and device of every real UA in the fixture', () => {
    expect(fixture.cases.length).toBeGreaterThan(200);
    const wrong = fixture.cases.filter((c) => JSON.stringify(parseUserAgent(c.ua)) !== JSON.stringify(c.expected));
    expect(wrong.map((c) => ({ ua: c.ua, expected: c.expected, got: parseUserAgent(c.ua) }))).toEqual([]);
  });

  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { browser: 'Chrome', browser_version: '120.0', os: 'Windows', os_version: '10', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      { browser: 'Safari', browser_version: '17.1', os: 'Mac', os_version: '10.15', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
      { browser: 'Safari', browser_version: '17.1', os: 'iOS', os_version: '17.1', device: 'Mobile' },
    ],
    [
      'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0.6045.169 Mobile/15E148 Safari/604.1',
      { browser: 'Chrome', browser_version: '119.0', os: 'iOS', os_version: '16.6', device: 'Tablet' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
      { browser: 'Samsung Browser', browser_version: '23.0', os: 'Android', os_version: '', device: 'Mobile' },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.61',
      { browser: 'Microsoft Edge', browser_version: '120.0', os: 'Windows', os_version: '10', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      { browser: 'Firefox', browser_version: '121.0', os: 'Ubuntu', os_version: '', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { browser: 'Chrome', browser_version: '120.0', os: 'GNU/Linux', os_version: '', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { browser: 'Chrome', browser_version: '120.0', os: 'Chrome OS', os_version: '14541.0', device: 'Desktop' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.0.0.40.113',
      { browser: 'Mobile App', browser_version: '', os: 'iOS', os_version: '17.1', device: 'Mobile' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230901.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/118.0.5993.111 Mobile Safari/537.36',
      { browser: 'Mobile App', browser_version: '', os: 'Android', os_version: '', device: 'Mobile' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { browser: 'Chrome', browser_version: '120.0', os: 'Android', os_version: '', device: 'Tablet' },
    ],
    [
      'Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko',
      { browser: 'Internet Explorer', browser_version: '11.0', os: 'Windows', os_version: '7', device: 'Desktop' },
    ],
    ['', { browser: '', browser_version: '', os: '', os_version: '', device: 'Desktop' }],
  ])('%s', (ua, expected) => {
    expect(parseUserAgent(ua)).toEqual(expected);
  });

  it('keeps major.minor only when both parts are there', () => {
    expect([majorMinor('120.0.6099.28'), majorMinor('17_1_2'), majorMinor('14'), majorMinor(''), majorMinor(undefined)]).toEqual(['120.0', '17.1', '', '', '']);
  });
});
