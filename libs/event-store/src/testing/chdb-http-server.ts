/**
 * TEST SUPPORT ONLY — not a production server.
 *
 * A small HTTP server that speaks enough of the ClickHouse HTTP interface for
 * @clickhouse/client, backed by chDB. It lets the event-store contract suite run
 * `ClickHouseEventStore` (the production adapter) for real — over HTTP, through
 * the real client, against the real ClickHouse engine — without a server.
 *
 * Supported: `GET /ping` and `GET /` → `Ok.`; the query in the `query` URL
 * parameter or the body; `param_*` URL parameters bound server-side; settings
 * as URL parameters; `database`; `default_format` (and a FORMAT clause in the
 * query); `INSERT … FORMAT <fmt>` with the rows in the body; gzip in both
 * directions; optional Basic / X-ClickHouse-User auth. Errors answer HTTP 500
 * (403 for auth) with `Code: N. DB::Exception: … (TYPE)` and the
 * `X-ClickHouse-Exception-Code` header, as a server does. Like a server, it
 * refuses multi-statement queries.
 *
 * Server defaults are emulated where they differ from chDB's — notably 64-bit
 * integers are quoted in JSON unless the request says otherwise — so a client
 * that forgets a setting fails here as it would against ClickHouse.
 *
 * chDB is one data directory per process: run this in a process that does not
 * open a ChdbEventStore on another directory (a separate vitest file does it).
 */
import { Session } from 'chdb';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { acquireChdbDataDir } from '../chdb-process-slot.js';
import { isMultiStatement } from '../split-sql-statements.js';
import { declaredParamTypes, paramTextToBindValue } from './clickhouse-param-text.js';

const gunzip = promisify(zlib.gunzip);
const gzip = promisify(zlib.gzip);

export interface ChdbHttpServerOptions {
  /** chDB data directory (created if missing). */
  dataDir: string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** When set, requests must authenticate as this user. */
  auth?: { username: string; password: string };
}

export interface ChdbHttpServer {
  /** Base URL without credentials, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly port: number;
  /** Requests served so far (lets tests prove traffic really went over HTTP). */
  readonly requestCount: number;
  close(): Promise<void>;
}

/** What a real server would default to where chDB's embedded defaults differ. */
const SERVER_DEFAULT_ARGS = ['--output_format_json_quote_64bit_integers=1'];

/** URL parameters that are part of the HTTP protocol, not settings. */
const PROTOCOL_PARAMS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'compress',
  'decompress',
  'enable_http_compression',
  'http_zlib_compression_level',
  'wait_end_of_query',
  'buffer_size',
  'role',
]);

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INSERT_WITH_BODY = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:\(([^)]*)\))?\s*FORMAT\s+(\w+)\s*;?\s*$/i;
const RAW_INSERT_FORMATS = new Set([
  'JSONEachRow',
  'JSONCompactEachRow',
  'CSV',
  'CSVWithNames',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
]);

class HttpQueryError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly type: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

export async function startChdbHttpServer(options: ChdbHttpServerOptions): Promise<ChdbHttpServer> {
  await mkdir(options.dataDir, { recursive: true });
  const release = await acquireChdbDataDir(options.dataDir);
  // One chDB connection per (database, settings): connection state (current
  // database, settings) never leaks between requests that differ in either.
  const sessions = new Map<string, Promise<Session>>();
  let requestCount = 0;

  const sessionFor = (database: string, settings: [string, string][]): Promise<Session> => {
    const key = JSON.stringify([database, settings]);
    let pending = sessions.get(key);
    if (!pending) {
      pending = (async () => {
        const session = new Session(options.dataDir, {
          connectionArgs: [...SERVER_DEFAULT_ARGS, ...settings.map(([name, value]) => `--${name}=${value}`)],
        });
        try {
          await session.queryAsync(`USE \`${database}\``);
          return session;
        } catch (error) {
          session.close();
          throw error;
        }
      })();
      sessions.set(key, pending);
      pending.catch(() => sessions.delete(key));
    }
    return pending;
  };

  const server = http.createServer((req, res) => {
    requestCount += 1;
    handle(req, res).catch((error: unknown) => sendError(res, error));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://facade');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    res.setHeader('X-ClickHouse-Query-Id', queryId);
    res.setHeader('X-ClickHouse-Timezone', 'UTC');

    if (options.auth && !authenticated(req, url, options.auth)) {
      throw new HttpQueryError(
        `${options.auth.username}: Authentication failed: password is incorrect, or there is no user with such name`,
        516,
        'AUTHENTICATION_FAILED',
        403,
      );
    }
    let body = await readBody(req);
    if (req.headers['content-encoding'] === 'gzip') body = await gunzip(body);

    let statement = url.searchParams.get('query');
    if (url.pathname === '/ping' || (statement === null && body.length === 0)) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    let payload: Buffer | undefined;
    if (statement === null) statement = body.toString('utf8');
    else if (body.length > 0) payload = body;

    const database = url.searchParams.get('database') || 'default';
    if (!DATABASE_NAME.test(database)) throw new HttpQueryError(`Database ${database} does not exist`, 81, 'UNKNOWN_DATABASE');
    const settings: [string, string][] = [];
    const params: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith('param_')) params[name.slice('param_'.length)] = value;
      else if (!PROTOCOL_PARAMS.has(name)) {
        if (!SETTING_NAME.test(name)) throw new HttpQueryError(`Unknown setting ${name}`, 115, 'UNKNOWN_SETTING');
        settings.push([name, value]);
      }
    }
    settings.sort(([a], [b]) => a.localeCompare(b));
    const session = await sessionFor(database, settings);

    const started = process.hrtime.bigint();
    let output: Buffer;
    let summary: { read_rows: number; read_bytes: number; written_rows: number; written_bytes: number };
    const insert = payload ? INSERT_WITH_BODY.exec(statement) : null;
    if (payload && insert && RAW_INSERT_FORMATS.has(insert[3]!)) {
      const columns = insert[2]
        ?.split(',')
        .map((c) => c.trim().replace(/^`|`$/g, ''))
        .filter(Boolean);
      const result = await session.insert({
        table: insert[1]!,
        values: payload,
        format: insert[3] as 'JSONEachRow',
        ...(columns?.length ? { columns } : {}),
        settings: Object.fromEntries(settings),
      });
      output = Buffer.alloc(0);
      summary = { read_rows: 0, read_bytes: 0, written_rows: result.rowsWritten, written_bytes: result.bytesWritten };
    } else {
      // ClickHouse reads a body after a `query` URL parameter as the rest of the query.
      if (payload) statement = `${statement}\n${payload.toString('utf8')}`;
      if (!/^\s*INSERT\b/i.test(statement) && isMultiStatement(statement)) {
        throw new HttpQueryError('Syntax error (Multi-statements are not allowed)', 62, 'SYNTAX_ERROR');
      }
      const format = url.searchParams.get('default_format') || 'TabSeparated';
      const types = declaredParamTypes(statement);
      const bound = Object.fromEntries(Object.entries(params).map(([name, text]) => [name, paramTextToBindValue(text, types.get(name))]));
      const result =
        Object.keys(bound).length > 0 ? await session.queryBindAsync(statement, bound, { format }) : await session.queryAsync(statement, { format });
      output = Buffer.from(result.bytes());
      summary = { read_rows: result.rowsRead, read_bytes: result.bytesRead, written_rows: 0, written_bytes: 0 };
    }

    const elapsedNs = process.hrtime.bigint() - started;
    res.setHeader(
      'X-ClickHouse-Summary',
      JSON.stringify({
        read_rows: String(summary.read_rows),
        read_bytes: String(summary.read_bytes),
        written_rows: String(summary.written_rows),
        written_bytes: String(summary.written_bytes),
        total_rows_to_read: String(summary.read_rows),
        result_rows: '0',
        result_bytes: '0',
        elapsed_ns: String(elapsedNs),
      }),
    );
    const compress = url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    if (compress) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8', 'Content-Encoding': 'gzip' }).end(await gzip(output));
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end(output);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  let closed = false;

  return {
    url: `http://${host}:${port}`,
    port,
    get requestCount() {
      return requestCount;
    },
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const pending of sessions.values()) {
        try {
          (await pending).close();
        } catch {
          // a session that failed to open has nothing to close
        }
      }
      sessions.clear();
      await release();
    },
  };
}

function authenticated(req: http.IncomingMessage, url: URL, expected: { username: string; password: string }): boolean {
  let user = url.searchParams.get('user') ?? (req.headers['x-clickhouse-user'] as string | undefined);
  let password = url.searchParams.get('password') ?? (req.headers['x-clickhouse-key'] as string | undefined);
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    user = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  return user === expected.username && (password ?? '') === expected.password;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendError(res: http.ServerResponse, error: unknown): void {
  const known = error as { clickhouseCode?: unknown; code?: unknown; type?: unknown; status?: unknown };
  const code = typeof known.clickhouseCode === 'number' ? known.clickhouseCode : typeof known.code === 'number' ? known.code : 1001;
  const raw = error instanceof Error ? error.message : String(error);
  const type = typeof known.type === 'string' ? known.type : 'STD_EXCEPTION';
  // chDB messages already read like a server's; anything else is dressed as one.
  const text = /^Code: \d+\. DB::Exception: /.test(raw) ? raw : `Code: ${code}. DB::Exception: ${raw}. (${type})`;
  const status = typeof known.status === 'number' ? known.status : 500;
  if (res.headersSent) {
    res.destroy(error instanceof Error ? error : undefined);
    return;
  }
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=UTF-8',
    'X-ClickHouse-Exception-Code': String(code),
  });
  res.end(`${text} (version 26.7 chdb-http-server test facade)\n`);
}
