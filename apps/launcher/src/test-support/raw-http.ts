import http from 'node:http';
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One request with its target sent byte for byte (fetch would normalise `..`,
 * reject odd methods and percent-encode what a hostile client would not).
 */
export function rawRequest(
  base: string,
  request: { method: string; path: string; headers: Record<string, string>; body?: string | Buffer },
  agent?: http.Agent,
): Promise<RawAnswer> {
  const url = new URL(base);
  // explicit length: Node's client sends a DELETE body with neither length nor chunking
  const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: url.hostname, port: Number(url.port), method: request.method, path: request.path, headers, agent, timeout: 10_000 },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within 10 s to ${request.method} ${request.path}`)));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * Bytes written straight to a socket, for requests Node's HTTP client refuses to
 * produce (unknown methods, bodies shorter than their Content-Length, broken
 * headers). Resolves with everything the server sent before closing.
 */
export function rawSocketExchange(base: string, bytes: string, options: { halfClose?: boolean; waitMs?: number } = {}): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(url.port), url.hostname, () => {
      if (options.halfClose ?? true) socket.end(bytes);
      else socket.write(bytes);
    });
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 3_000);
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Status, headers (lower-cased names) and body of a raw HTTP/1.1 response. */
export function parseRawResponse(raw: string): RawAnswer | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  if (!match) return undefined;
  const headers: http.IncomingHttpHeaders = {};
  for (const line of match[2]!.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers, text: match[3]! };
}
