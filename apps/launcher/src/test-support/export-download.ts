import http from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

// off the event loop: the server under test shares this process, and its gRPC keepalives with it
const gunzipAsync = promisify(gunzip);

export interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  trailers: NodeJS.Dict<string>;
  /** the body as sent (gzip for text formats) */
  body: Buffer;
  /** the body decompressed when it is gzip, else as sent */
  file: Buffer;
  /** the error object when status is not 200 */
  error?: { code: string; error: string; request_id: string };
}

/** GET over node:http, which exposes the chunked body's trailers (fetch does not). */
export function download(base: string, path: string, headers: Record<string, string>): Promise<Download> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(path, base), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        const gzip = response.headers['content-type'] === 'application/gzip';
        (gzip ? gunzipAsync(body) : Promise.resolve(body)).then((file) => {
          const answer: Download = { status: response.statusCode ?? 0, headers: response.headers, trailers: response.trailers, body, file };
          if (answer.status !== 200) answer.error = JSON.parse(body.toString('utf8')) as Download['error'];
          resolve(answer);
        }, reject);
      });
    });
    request.on('error', reject);
  });
}
