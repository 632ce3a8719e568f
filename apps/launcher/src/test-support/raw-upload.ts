import net from 'node:net';

/** How a client stops sending: half-close (FIN, still reading), close, or reset (RST). */
export type CutBy = 'end' | 'destroy' | 'reset';

export interface RawUpload {
  /** The socket, with the head and the body's first bytes written. */
  socket: net.Socket;
  /** Everything the server has sent so far. */
  received(): string;
  /** Stops sending the way `by` says; resolves with what the server sent once the socket is closed (or after `waitMs`). */
  cut(by: CutBy, waitMs?: number): Promise<string>;
}

/**
 * A POST whose body stops short: the head (with its Content-Length, or chunked) and
 * `sent` written straight to a socket, which the test then cuts. fetch and Node's
 * client cannot send a body shorter than its declared length.
 */
export function startRawUpload(base: string, request: { path: string; headers: Record<string, string>; sent: Buffer }): Promise<RawUpload> {
  const url = new URL(base);
  const head = `POST ${request.path} HTTP/1.1\r\nhost: ${url.host}\r\n${Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      // resolved once the bytes are handed to the kernel, so a cut never overtakes them
      socket.write(request.sent, () =>
        resolve({
          socket,
          received: () => received,
          async cut(by, waitMs = 5_000) {
            if (by === 'end') socket.end();
            else if (by === 'destroy') socket.destroy();
            else socket.resetAndDestroy();
            const timer = setTimeout(() => socket.destroy(), waitMs);
            await closed;
            clearTimeout(timer);
            return received;
          },
        }),
      );
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}
