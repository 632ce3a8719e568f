import { describe, expect, it } from 'vitest';
import { MAX_PATHNAME, parsePage } from './page.js';

const plain = { hashRouting: false };
const hash = { hashRouting: true };

describe('parsePage', () => {
  it('lowercases the host, drops www. and the query', () => {
    expect(parsePage('https://WWW.Example.COM/Blog/Post?utm_source=x&ref=y', plain)).toEqual({ hostname: 'example.com', pathname: '/Blog/Post' });
  });
  it('keeps a subdomain other than www and gives / for the root', () => {
    expect(parsePage('https://shop.example.com', plain)).toEqual({ hostname: 'shop.example.com', pathname: '/' });
  });
  it('decodes the path for display but keeps an encoded slash', () => {
    expect(parsePage('https://example.com/%C3%BCber/a%2Fb', plain)).toEqual({ hostname: 'example.com', pathname: '/über/a%2Fb' });
  });
  it('keeps a malformed escape as sent', () => {
    expect(parsePage('https://example.com/100%', plain)?.pathname).toBe('/100%');
  });
  it('appends the hash route in hash-routing mode only, without its query', () => {
    expect(parsePage('https://example.com/app#/settings/profile?tab=2', hash)?.pathname).toBe('/app#/settings/profile');
    expect(parsePage('https://example.com/app#/settings', plain)?.pathname).toBe('/app');
    expect(parsePage('https://example.com/#', hash)?.pathname).toBe('/');
  });
  it('puts an IDN host in punycode', () => {
    expect(parsePage('https://bücher.example/', plain)?.hostname).toBe('xn--bcher-kva.example');
  });
  it('answers null for an unparseable URL or one without a host', () => {
    expect(parsePage('not a url', plain)).toBeNull();
    expect(parsePage('', plain)).toBeNull();
    expect(parsePage('file:///home/me/index.html', plain)).toBeNull();
  });
  it('answers null for a page that is not http: or https: (SEMANTICS: only web pages count)', () => {
    for (const url of [
      'ftp://example.com/a',
      'ws://example.com/',
      'wss://example.com/',
      'chrome-extension://abcdefghijklmnop/popup.html',
      'moz-extension://x/y',
      'data:text/html,hi',
      'javascript://example.com/%0Aalert(1)',
      'gopher://example.com/',
    ]) {
      expect(parsePage(url, plain), url).toBeNull();
    }
    expect(parsePage('HTTPS://Example.com/a', plain)).toEqual({ hostname: 'example.com', pathname: '/a' });
    expect(parsePage('http://example.com/a', plain)).toEqual({ hostname: 'example.com', pathname: '/a' });
  });
  it('bounds the pathname at 2048 characters without splitting a surrogate pair', () => {
    const long = parsePage(`https://example.com/${'a'.repeat(5000)}`, plain)!;
    expect(long.pathname.length).toBe(MAX_PATHNAME);
    const emoji = parsePage(`https://example.com/${'a'.repeat(2046)}😀`, plain)!;
    expect(emoji.pathname.length).toBe(2047); // '/' + 2046 'a'; the pair would end at 2049
  });
});
