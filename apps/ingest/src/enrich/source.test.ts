import { describe, expect, it } from 'vitest';
import { MAX_UTM, resolveSource } from './source.js';

const page = 'https://example.com/pricing';
const none = { utm_source: '', utm_medium: '', utm_campaign: '', utm_content: '', utm_term: '', click_id: '' };

describe('resolveSource', () => {
  it('maps a known referrer host to its name, path kept, query dropped', () => {
    expect(resolveSource({ referrer: 'https://www.google.co.uk/search?q=secret', pageUrl: page, pageHost: 'example.com' })).toEqual({
      ...none,
      source: 'Google',
      referrer: 'www.google.co.uk/search',
      referrer_host: 'www.google.co.uk',
    });
  });
  it('uses Snowplow path entries and parent domains', () => {
    expect(resolveSource({ referrer: 'https://www.bing.com/images/search?q=x', pageUrl: page, pageHost: 'example.com' }).source).toBe('Bing Images');
    expect(resolveSource({ referrer: 'https://l.facebook.com/', pageUrl: page, pageHost: 'example.com' }).source).toBe('Facebook');
    expect(resolveSource({ referrer: 'https://chatgpt.com/', pageUrl: page, pageHost: 'example.com' }).source).toBe('ChatGPT');
    expect(resolveSource({ referrer: 'https://news.ycombinator.com/item?id=1', pageUrl: page, pageHost: 'example.com' })).toMatchObject({
      source: 'Hacker News',
      referrer: 'news.ycombinator.com/item',
    });
  });
  it('falls back to the bare host without www. for an unknown referrer', () => {
    expect(resolveSource({ referrer: 'https://www.someblog.dev/posts/1', pageUrl: page, pageHost: 'example.com' })).toMatchObject({
      source: 'someblog.dev',
      referrer: 'www.someblog.dev/posts/1',
      referrer_host: 'www.someblog.dev',
    });
  });
  it('ignores same-host (www or not) and local referrers: Direct / None', () => {
    for (const referrer of [
      'https://example.com/',
      'https://www.example.com/a',
      'http://localhost:3000/',
      'http://127.0.0.1/x',
      'http://app.localhost/',
      'not a url',
      '',
    ]) {
      expect(resolveSource({ referrer, pageUrl: page, pageHost: 'example.com' })).toEqual({ ...none, source: '', referrer: '', referrer_host: '' });
    }
  });
  it('prefers utm_source, then ref, then source over the referrer, and reads every utm_*', () => {
    const url = 'https://example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=spring+sale&utm_content=top%20banner&utm_term=shoes&ref=x';
    expect(resolveSource({ referrer: 'https://www.google.com/', pageUrl: url, pageHost: 'example.com' })).toEqual({
      source: 'newsletter',
      referrer: 'www.google.com',
      referrer_host: 'www.google.com',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring sale',
      utm_content: 'top banner',
      utm_term: 'shoes',
      click_id: '',
    });
    expect(resolveSource({ pageUrl: 'https://example.com/?ref=producthunt&source=x', pageHost: 'example.com' }).source).toBe('producthunt');
    expect(resolveSource({ pageUrl: 'https://example.com/?source=podcast', pageHost: 'example.com' }).source).toBe('podcast');
  });
  it('keeps the click-id parameter name, never its value', () => {
    const info = resolveSource({ pageUrl: 'https://example.com/?gclid=Cj0KCQ-secret-value', pageHost: 'example.com' });
    expect(info.click_id).toBe('gclid');
    expect(JSON.stringify(info)).not.toContain('secret');
    expect(resolveSource({ pageUrl: 'https://example.com/?msclkid=1&fbclid=2', pageHost: 'example.com' }).click_id).toBe('msclkid');
  });
  it('bounds utm values at 256 characters', () => {
    const info = resolveSource({ pageUrl: `https://example.com/?utm_campaign=${'c'.repeat(1000)}`, pageHost: 'example.com' });
    expect(info.utm_campaign.length).toBe(MAX_UTM);
  });
});
