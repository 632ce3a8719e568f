import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@sightline/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOutboxMailer } from './file-outbox-mailer.js';
import { parseMessage } from './test-support/raw-message.js';

const FROM = 'Sightline <no-reply@localhost>';

describe('FileOutboxMailer', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let dir: string;
  let outbox: FileOutboxMailer;

  beforeEach(async () => {
    temp = await makeTempDir('sightline-mailer-');
    dir = path.join(temp.path, 'data', 'mail');
    outbox = new FileOutboxMailer({ dir, from: FROM });
  });
  afterEach(async () => {
    await outbox.close();
    await temp.remove();
  });

  it('writes one .eml per send, sortable in send order, and no temp files remain', async () => {
    const first = await outbox.send({ to: 'ada@example.org', subject: 'Ihr Code — 123456', text: 'Code: 123456\nGültig 10 Minuten.' });
    const second = await outbox.send({ to: 'bob@example.org', subject: 'Second', text: 'two', html: '<p>two</p>' });

    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.every((name) => /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+\.eml$/.test(name))).toBe(true);
    const [firstFile, secondFile] = [...files].sort();

    const raw = await readFile(path.join(dir, firstFile!));
    const message = parseMessage(raw);
    expect(message.headers.get('to')).toBe('ada@example.org');
    expect(message.headers.get('from')).toBe(FROM);
    expect(message.headers.get('subject')).toBe('Ihr Code — 123456');
    expect(message.headers.get('message-id')).toBe(first.messageId);
    expect(message.text).toBe('Code: 123456\r\nGültig 10 Minuten.');
    // RFC 5322 line ends, as on the wire.
    expect(raw.toString('latin1')).not.toMatch(/[^\r]\n/);

    const secondMessage = parseMessage(await readFile(path.join(dir, secondFile!)));
    expect(secondMessage.headers.get('message-id')).toBe(second.messageId);
    expect(secondMessage.html).toBe('<p>two</p>');
  });

  it('writes files readable by the owner only (they hold login codes)', async () => {
    await outbox.send({ to: 'ada@example.org', subject: 'Code', text: '123456' });
    const [file] = await readdir(dir);
    expect((await stat(path.join(dir, file!))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps every file of a burst of concurrent sends', async () => {
    await Promise.all(Array.from({ length: 25 }, (_, i) => outbox.send({ to: `u${i}@example.org`, subject: `${i}`, text: `${i}` })));
    const files = await readdir(dir);
    expect(files).toHaveLength(25);
    expect(files.some((name) => name.endsWith('.tmp'))).toBe(false);
  });

  it('verify() creates the directory', async () => {
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await outbox.verify();
    expect((await stat(dir)).isDirectory()).toBe(true);
  });

  it('verify() rejects when the path is a file', async () => {
    const file = path.join(temp.path, 'not-a-dir');
    await writeFile(file, 'x');
    const blocked = new FileOutboxMailer({ dir: file, from: FROM });
    await expect(blocked.verify()).rejects.toThrow();
  });

  it('recreates the directory when it is deleted while running', async () => {
    await outbox.send({ to: 'ada@example.org', subject: 'one', text: '1' });
    await rm(dir, { recursive: true });
    await outbox.send({ to: 'ada@example.org', subject: 'two', text: '2' });
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('refuses more than one recipient, and none', async () => {
    await expect(outbox.send({ to: 'a@example.org, b@example.org', subject: 'x', text: 'x' })).rejects.toMatchObject({
      code: 'EMAXRECIPIENTS',
    });
    await expect(outbox.send({ to: '', subject: 'x', text: 'x' })).rejects.toThrow(/no recipient/);
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('close() refuses further sends', async () => {
    expect(outbox.kind).toBe('file');
    await outbox.close();
    await expect(outbox.send({ to: 'ada@example.org', subject: 'x', text: 'x' })).rejects.toThrow(/closed/);
  });
});
