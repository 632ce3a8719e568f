import http from 'node:http';
import { gunzipSync } from 'node:zlib';

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
        const answer: Download = { status: response.statusCode ?? 0, headers: response.headers, trailers: response.trailers, body, file: gzip ? gunzipSync(body) : body };
        if (answer.status !== 200) answer.error = JSON.parse(body.toString('utf8')) as Download['error'];
        resolve(answer);
      });
    });
    request.on('error', reject);
  });
}
