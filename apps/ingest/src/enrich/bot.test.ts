import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectBot, type BotCategory } from './bot.js';

const read = <T>(name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
const bots = read<{ cases: Array<{ ua: string; category: BotCategory }> }>('bots.json').cases;
const browsers = read<{ cases: Array<{ ua: string }> }>('user-agents.json').cases;

describe('detectBot', () => {
  it('flags every real bot UA of the fixture with its category', () => {
    expect(new Set(bots.map((b) => b.category))).toEqual(new Set(['search', 'ai', 'monitoring', 'other']));
    expect(bots.filter((b) => detectBot(b.ua)?.category !== b.category)).toEqual([]);
  });

  it('flags no real browser UA (but one known isbot false positive)', () => {
    expect(browsers.length).toBeGreaterThan(200);
    // isbot 5.2 reads the HTC "Radar" model name as a radar crawler: a 2011 Windows Phone, accepted
    expect(browsers.filter((b) => detectBot(b.ua) !== null).map((b) => b.ua)).toEqual([
      'Mozilla/5.0 (compatible; MSIE 9.0; Windows Phone OS 7.5; Trident/5.0; IEMobile/9.0; HTC; Radar C110e)',
    ]);
  });

  it.each<[string, BotCategory]>([
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'ai'],
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', 'ai'],
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)', 'ai'],
    ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'ai'],
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)', 'ai'],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'search'],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'search'],
    ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'search'],
    ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'search'],
    ['Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)', 'monitoring'],
    ['Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)', 'monitoring'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36', 'other'],
    ['Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1', 'other'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Selenium', 'other'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Puppeteer', 'other'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/84.0.4143.7 Safari/537.36 Chrome-Lighthouse', 'other'],
    ['curl/8.4.0', 'other'],
    ['python-requests/2.31.0', 'other'],
    ['Go-http-client/1.1', 'other'],
    ['axios/1.6.2', 'other'],
    ['node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'other'],
    ['Wget/1.21.4', 'other'],
    ['Dart/3.2 (dart:io)', 'other'],
    ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'other'],
    ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'other'],
    ['', 'other'],
    ['   ', 'other'],
  ])('%s → %s', (ua, category) => {
    expect(detectBot(ua)).toEqual({ category });
  });

  it('lets real browsers and in-app browsers through', () => {
    expect(
      detectBot('Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.0.0.40.113'),
    ).toBeNull();
    expect(detectBot('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36')).toBeNull();
  });
});
