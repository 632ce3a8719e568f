import { describe, expect, it } from 'vitest';
import { checkEmailAddress } from './email-address.js';

const accepted: Array<[string, string]> = [
  ['jane@mail.com', 'jane@mail.com'],
  ['  Jane.Doe+stats@Mail.COM  ', 'jane.doe+stats@mail.com'],
  ['x@gmail.com.', 'x@gmail.com'], // the DNS root dot: same domain
  ['x@bücher.de', 'x@xn--bcher-kva.de'],
  ['x@xn--bcher-kva.de', 'x@xn--bcher-kva.de'],
  ['x@ｍａｉｌ.com', 'x@mail.com'], // full-width letters fold (IDNA mapping)
  ['x@example.co', 'x@example.co'], // only .com/.net/.org example domains are reserved
  ['x@notexample.com', 'x@notexample.com'],
  ['x@example.com.au', 'x@example.com.au'],
  ['x@ru.com', 'x@ru.com'], // "ru" as a label, not the zone
  ['x@mail.rus', 'x@mail.rus'],
  ["o'brien_{1}@a-b.io", "o'brien_{1}@a-b.io"],
  [`${'a'.repeat(64)}@mail.com`, `${'a'.repeat(64)}@mail.com`],
];

const refusedAs: Array<[string, 'invalid_request' | 'email_undeliverable' | 'domain_not_allowed']> = [
  // syntax
  ['', 'invalid_request'],
  ['   ', 'invalid_request'],
  ['jane', 'invalid_request'],
  ['jane@', 'invalid_request'],
  ['@mail.com', 'invalid_request'],
  ['a@b@mail.com', 'invalid_request'],
  ['jane doe@mail.com', 'invalid_request'],
  ['jane@mail .com', 'invalid_request'],
  ['jane\n@mail.com', 'invalid_request'],
  ['.jane@mail.com', 'invalid_request'],
  ['jane.@mail.com', 'invalid_request'],
  ['ja..ne@mail.com', 'invalid_request'],
  ['"jane"@mail.com', 'invalid_request'],
  ['jane@localhost', 'invalid_request'], // no dot
  ['jane@mail', 'invalid_request'],
  ['jane@.mail.com', 'invalid_request'],
  ['jane@mail..com', 'invalid_request'],
  ['jane@mail.com..', 'invalid_request'],
  ['jane@-mail.com', 'invalid_request'],
  ['jane@mail-.com', 'invalid_request'],
  ['jane@ma_il.com', 'invalid_request'],
  ['jane@ex%61mple.com', 'invalid_request'], // percent-escapes would decode to example.com
  ['jane@1.2.3.4', 'invalid_request'],
  ['jane@[127.0.0.1]', 'invalid_request'],
  ['jane@xn--zz.com', 'invalid_request'], // invalid punycode
  [`${'a'.repeat(65)}@mail.com`, 'invalid_request'],
  [`a@${'b'.repeat(64)}.com`, 'invalid_request'], // label over 63
  [`a@${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}.com`, 'invalid_request'], // over 254
  [`${'a'.repeat(64)}@${Array.from({ length: 6 }, () => 'ü'.repeat(25)).join('.')}.de`, 'invalid_request'], // ≤ 254 typed, over once in punycode
  // non-ASCII mailbox
  ['тест@mail.com', 'email_undeliverable'],
  ['jöe@mail.com', 'email_undeliverable'],
  ['тест@mail.ru', 'email_undeliverable'],
  // reserved and special-use
  ['a@example.com', 'email_undeliverable'],
  ['a@EXAMPLE.com', 'email_undeliverable'],
  ['a@example.net', 'email_undeliverable'],
  ['a@example.org', 'email_undeliverable'],
  ['x@sub.example.org', 'email_undeliverable'],
  ['x@deep.sub.example.com', 'email_undeliverable'],
  ['x@example.com.', 'email_undeliverable'],
  ['x@ｅｘａｍｐｌｅ.com', 'email_undeliverable'],
  ['x@mail.test', 'email_undeliverable'],
  ['x@a.invalid', 'email_undeliverable'],
  ['x@site.example', 'email_undeliverable'],
  ['x@app.localhost', 'email_undeliverable'],
  ['x@APP.LOCALHOST', 'email_undeliverable'],
  // refused zones, every spelling
  ['x@mail.ru', 'domain_not_allowed'],
  ['x@MAIL.RU', 'domain_not_allowed'],
  ['x@mail.ru.', 'domain_not_allowed'],
  ['x@yandex.su', 'domain_not_allowed'],
  ['x@tut.by', 'domain_not_allowed'],
  ['x@пример.рф', 'domain_not_allowed'],
  ['x@xn--e1afmkfd.xn--p1ai', 'domain_not_allowed'],
  ['x@XN--E1AFMKFD.XN--P1AI', 'domain_not_allowed'],
  ['x@site.бел', 'domain_not_allowed'],
  ['x@site.xn--90ais', 'domain_not_allowed'],
  ['x@mail.ｒｕ', 'domain_not_allowed'], // full-width letters
  ['x@mail。ru', 'domain_not_allowed'], // ideographic full stop
];

describe('checkEmailAddress', () => {
  it.each(accepted)('accepts %j as %j', (raw, email) => {
    expect(checkEmailAddress(raw)).toEqual({ ok: true, email });
  });

  it.each(refusedAs)('refuses %j with %s', (raw, code) => {
    const result = checkEmailAddress(raw);
    expect(result).toMatchObject({ ok: false, code });
    if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 42, {}, ['a@b.com']]) expect(checkEmailAddress(value)).toMatchObject({ ok: false, code: 'invalid_request' });
  });

  it('names every refused zone in the domain_not_allowed message', () => {
    const result = checkEmailAddress('x@пример.рф');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain('.рф');
      for (const zone of ['.ru', '.su', '.by', '.рф', '.бел']) expect(result.message).toContain(zone);
    }
  });

  it('gives one address per person whatever the spelling', () => {
    const spellings = ['Jane@Bücher.de', 'jane@xn--bcher-kva.de', ' JANE@BÜCHER.DE. '];
    expect(new Set(spellings.map((s) => (checkEmailAddress(s) as { email: string }).email)).size).toBe(1);
  });
});
