import { describe, expect, it } from 'vitest';
import { describeSmtpEndpoint, parseSmtpUrl, SmtpUrlError } from './smtp-url.js';

describe('parseSmtpUrl', () => {
  it('smtp:// defaults to port 587 with opportunistic STARTTLS', () => {
    expect(parseSmtpUrl('smtp://mail.example.com')).toEqual({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      startTls: 'opportunistic',
      rejectUnauthorized: true,
    });
  });

  it('smtps:// defaults to port 465 with implicit TLS', () => {
    expect(parseSmtpUrl('smtps://mail.example.com')).toMatchObject({ port: 465, secure: true, startTls: 'off' });
  });

  it('reads percent-encoded credentials and an explicit port', () => {
    expect(parseSmtpUrl('smtp://user%40example.com:p%40ss%3Aw%2Frd@mail.example.com:2525')).toMatchObject({
      host: 'mail.example.com',
      port: 2525,
      auth: { user: 'user@example.com', pass: 'p@ss:w/rd' },
    });
  });

  it('accepts an IPv6 literal', () => {
    expect(parseSmtpUrl('smtp://[::1]:25')).toMatchObject({ host: '::1', port: 25 });
  });

  it.each([
    ['smtp://relay:25?tls=false', 'off'],
    ['smtp://relay:25?ignoreTLS=true', 'off'],
    ['smtp://relay:25?ignoreTLS=1', 'off'],
    ['smtp://relay?requireTLS=true', 'required'],
    ['smtp://relay?tls=true', 'opportunistic'],
  ])('%s → STARTTLS %s', (url, policy) => {
    expect(parseSmtpUrl(url).startTls).toBe(policy);
  });

  it('rejectUnauthorized=false accepts unverifiable certificates', () => {
    expect(parseSmtpUrl('smtps://relay?rejectUnauthorized=false').rejectUnauthorized).toBe(false);
  });

  it.each([
    ['not a url', /not a URL/],
    ['http://mail.example.com', /scheme/],
    ['smtp://', /missing host/],
    ['smtp://relay/587', /path/],
    ['smtp://relay?tsl=false', /unknown option "tsl"/],
    ['smtp://relay?tls=nope', /true or false/],
    ['smtp://relay?tls=false&tls=false', /twice/],
    ['smtp://relay?tls=false&requireTLS=true', /contradict/],
    ['smtps://relay?tls=false', /smtps/],
    ['smtp://user@relay', /without a password/],
    ['smtp://user:%E0%A4%A@relay', /malformed/],
  ])('rejects %s', (url, message) => {
    expect(() => parseSmtpUrl(url)).toThrow(SmtpUrlError);
    expect(() => parseSmtpUrl(url)).toThrow(message);
  });

  it('never puts the password into an error message', () => {
    try {
      parseSmtpUrl('smtp://user:hunter2@relay?bogus=1');
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });
});

describe('describeSmtpEndpoint', () => {
  it('drops the password', () => {
    expect(describeSmtpEndpoint(parseSmtpUrl('smtp://user:hunter2@relay:25'))).toBe('smtp://user@relay:25');
    expect(describeSmtpEndpoint(parseSmtpUrl('smtps://[::1]'))).toBe('smtps://[::1]:465');
  });
});
