import net from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One message as the server received it. */
export interface CapturedMail {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  /** The AUTH user of the session, when the client logged in. */
  user?: string;
}

export interface SmtpSink {
  port: number;
  url: string;
  received: CapturedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 and an ephemeral port that keeps every message it accepts.
 * Plain text only (STARTTLS off), AUTH optional; `overrides` swap in handlers such as a
 * rejecting `onRcptTo` or a checking `onAuth`.
 */
export async function startSmtpSink(overrides: Partial<SMTPServerOptions> = {}): Promise<SmtpSink> {
  const received: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Close lingering pooled client connections quickly when the test ends.
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const mail: CapturedMail = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks),
        };
        if (typeof session.user === 'string') mail.user = session.user;
        received.push(mail);
        callback();
      });
    },
    ...overrides,
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on 127.0.0.1 that nothing listens on: connecting is refused at once. */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Accepts TCP connections and never says a word: the "hung relay" case. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
