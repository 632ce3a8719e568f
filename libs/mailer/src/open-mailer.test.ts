import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@sightline/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { FileOutboxMailer, SmtpMailer, openMailer, type Mailer } from './index.js';
import { startSmtpSink } from './test-support/smtp-sink.js';

describe('openMailer', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  function track(mailer: Mailer): Mailer {
    cleanups.push(() => mailer.close());
    return mailer;
  }

  it('without an SMTP URL (unset or blank) writes to <dataDir>/mail', async () => {
    const temp = await makeTempDir('sightline-mailer-');
    cleanups.push(temp.remove);

    for (const smtpUrl of [undefined, '', '  ']) {
      const mailer = track(openMailer({ dataDir: temp.path, from: 'Sightline <no-reply@localhost>', ...(smtpUrl === undefined ? {} : { smtpUrl }) }));
      expect(mailer).toBeInstanceOf(FileOutboxMailer);
      expect(mailer.kind).toBe('file');
    }
    const mailer = track(openMailer({ dataDir: temp.path, from: 'Sightline <no-reply@localhost>' }));
    await mailer.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });
    expect(await readdir(path.join(temp.path, 'mail'))).toHaveLength(1);
  });

  it('writes to the outbox directory it is given (MAIL_OUTBOX_DIR), not <dataDir>/mail', async () => {
    const temp = await makeTempDir('sightline-mailer-');
    cleanups.push(temp.remove);
    const outbox = path.join(temp.path, 'shared-outbox');
    const mailer = track(openMailer({ dataDir: temp.path, outboxDir: outbox, from: 'Sightline <no-reply@localhost>' }));
    await mailer.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });
    expect(await readdir(outbox)).toHaveLength(1);
    expect(await readdir(temp.path)).toEqual(['shared-outbox']);
  });

  it('with an SMTP URL delivers over SMTP', async () => {
    const server = await startSmtpSink();
    cleanups.push(server.close);

    const mailer = track(openMailer({ smtpUrl: server.url, dataDir: '/nonexistent', from: 'Sightline <no-reply@localhost>' }));
    expect(mailer).toBeInstanceOf(SmtpMailer);
    expect(mailer.kind).toBe('smtp');
    await mailer.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });
    expect(server.received).toHaveLength(1);
  });

  it('fails at startup on a bad SMTP URL', () => {
    expect(() => openMailer({ smtpUrl: 'smtp://relay?tsl=false', dataDir: '/tmp', from: 'x@localhost' })).toThrow(/Invalid SMTP_URL/);
  });
});
