import { afterEach, describe, expect, it } from 'vitest';
import { SmtpMailer } from './smtp-mailer.js';
import { parseMessage } from './test-support/raw-message.js';
import { closedPort, startSilentServer, startSmtpSink, type SmtpSink } from './test-support/smtp-sink.js';

const FROM = 'Sightline <login@sightline.test>';

describe('SmtpMailer against a real SMTP server', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    // Mailers before servers: closing the pool first lets the server shut down at once.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function sink(overrides?: Parameters<typeof startSmtpSink>[0]): Promise<SmtpSink> {
    const started = await startSmtpSink(overrides);
    cleanups.push(started.close);
    return started;
  }

  function mailer(url: string, timeouts?: ConstructorParameters<typeof SmtpMailer>[0]['timeouts']): SmtpMailer {
    const created = new SmtpMailer({ url, from: FROM, ...(timeouts ? { timeouts } : {}) });
    cleanups.push(() => created.close());
    return created;
  }

  it('delivers To, From, a UTF-8 subject and the text body intact', async () => {
    const server = await sink();
    const smtp = mailer(server.url);

    const sent = await smtp.send({
      to: 'ada@example.org',
      subject: 'Ihr Code — 123456',
      text: 'Ihr Anmeldecode lautet 123456.\nGültig für 10 Minuten.',
    });

    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail?.mailFrom).toBe('login@sightline.test');
    expect(mail?.rcptTo).toEqual(['ada@example.org']);

    const raw = mail!.raw.toString('latin1');
    // Plain 7-bit on the wire: the non-ASCII subject must have been encoded, not sent raw.
    expect(/^[\x00-\x7f]*$/.test(raw)).toBe(true);
    const message = parseMessage(mail!.raw);
    expect(message.headers.get('to')).toBe('ada@example.org');
    expect(message.headers.get('from')).toBe('Sightline <login@sightline.test>');
    expect(message.headers.get('subject')).toBe('Ihr Code — 123456');
    expect(message.headers.get('message-id')).toBe(sent.messageId);
    expect(message.headers.has('x-mailer')).toBe(false);
    expect(message.text.replace(/\r\n/g, '\n')).toBe('Ihr Anmeldecode lautet 123456.\nGültig für 10 Minuten.');
  });

  it('sends the html as an alternative to the text', async () => {
    const server = await sink();
    const smtp = mailer(server.url);

    await smtp.send({ to: 'ada@example.org', subject: 'Code', text: 'Code: 123456', html: '<p>Code: <b>123456</b></p>' });

    const message = parseMessage(server.received[0]!.raw);
    expect(message.headers.get('content-type')).toMatch(/^multipart\/alternative/);
    expect(message.text).toBe('Code: 123456');
    expect(message.html).toBe('<p>Code: <b>123456</b></p>');
  });

  it('reuses pooled connections for many concurrent sends', async () => {
    let connections = 0;
    const server = await sink({
      onConnect(_session, callback) {
        connections++;
        callback();
      },
    });
    const smtp = mailer(server.url);

    const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => smtp.send({ to: `user${i}@example.org`, subject: `Code ${i}`, text: `${i}` })));

    expect(server.received).toHaveLength(20);
    expect(new Set(sent.map((s) => s.messageId)).size).toBe(20);
    expect(connections).toBeLessThanOrEqual(5);
  });

  it('logs in with the credentials from the URL, percent-decoded', async () => {
    const server = await sink({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer@sightline.test' && auth.password === 'p@ss:w/rd%') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });
    const smtp = mailer(`smtp://mailer%40sightline.test:p%40ss%3Aw%2Frd%25@127.0.0.1:${server.port}`);

    await smtp.verify();
    await smtp.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });

    expect(server.received[0]?.user).toBe('mailer@sightline.test');
  });

  it('rejects when the server refuses the login', async () => {
    const server = await sink({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (_auth, _session, callback) => callback(new Error('Invalid username or password')),
    });
    const smtp = mailer(`smtp://someone:wrong@127.0.0.1:${server.port}`);

    await expect(smtp.verify()).rejects.toMatchObject({ code: 'EAUTH' });
  });

  it('verify() succeeds against a live server', async () => {
    const server = await sink();
    await expect(mailer(server.url).verify()).resolves.toBeUndefined();
  });

  it('verify() and send() fail fast against a closed port', async () => {
    const smtp = mailer(`smtp://127.0.0.1:${await closedPort()}`);

    const started = Date.now();
    await expect(smtp.verify()).rejects.toThrow(/ECONNREFUSED/);
    await expect(smtp.send({ to: 'ada@example.org', subject: 'Code', text: '123456' })).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('verify() gives up on a server that accepts but never greets', async () => {
    const silent = await startSilentServer();
    cleanups.push(silent.close);
    const smtp = mailer(`smtp://127.0.0.1:${silent.port}`, { connectMs: 300, greetingMs: 300 });

    const started = Date.now();
    await expect(smtp.verify()).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('send() gives up after sendMs when the server stalls mid-delivery', async () => {
    const server = await sink({
      // Swallow the message and never answer the end of DATA.
      onData: (stream) => stream.resume(),
    });
    const smtp = mailer(server.url, { sendMs: 500 });

    const started = Date.now();
    await expect(smtp.send({ to: 'ada@example.org', subject: 'Code', text: '123456' })).rejects.toMatchObject({
      code: 'EABORT',
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('send() rejects when the server refuses the recipient', async () => {
    const server = await sink({
      onRcptTo(address, _session, callback) {
        const error = new Error(`<${address.address}>: mailbox unavailable`) as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
      },
    });
    const smtp = mailer(server.url);

    await expect(smtp.send({ to: 'nobody@example.org', subject: 'Code', text: '123456' })).rejects.toMatchObject({
      code: 'EENVELOPE',
      responseCode: 550,
    });
    expect(server.received).toHaveLength(0);
  });

  it('refuses a To with more than one address, so a code cannot be copied to a second mailbox', async () => {
    const server = await sink();
    const smtp = mailer(server.url);

    await expect(smtp.send({ to: 'victim@example.org, attacker@evil.test', subject: 'Code', text: '123456' })).rejects.toMatchObject({
      code: 'EMAXRECIPIENTS',
    });
    expect(server.received).toHaveLength(0);
  });

  it('close() lets an in-flight send finish, then refuses new ones', async () => {
    const server = await sink();
    const smtp = new SmtpMailer({ url: server.url, from: FROM });

    const inFlight = smtp.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });
    await smtp.close();

    await expect(inFlight).resolves.toMatchObject({ messageId: expect.any(String) });
    expect(server.received).toHaveLength(1);
    await expect(smtp.send({ to: 'ada@example.org', subject: 'Code', text: '1' })).rejects.toThrow(/closed/);
    await expect(smtp.verify()).rejects.toThrow(/closed/);
  });

  it('exposes the endpoint without the password', () => {
    const smtp = mailer('smtps://mailer:s3cret@smtp.example.com');
    expect(smtp.kind).toBe('smtp');
    expect(smtp.endpoint).toBe('smtps://mailer@smtp.example.com:465');
  });
});
