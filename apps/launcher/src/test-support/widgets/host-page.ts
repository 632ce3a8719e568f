import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site owner's page on ANOTHER origin (http://localhost:<port>, while Sightline is
 * http://127.0.0.1:<port>), under a strict CSP of its own: scripts and connections only
 * from the Sightline origin, styles only its own stylesheet, nothing inline. Its
 * stylesheet also tries to restyle the widgets' inner classes, which the shadow root
 * must keep out. Pages are registered by the tests as HTML bodies.
 */
export interface HostSite {
  origin: string;
  /** registers a page and answers its URL */
  page(name: string, body: string): string;
  stop(): Promise<void>;
}

const HOST_CSS = `body{font-family:Georgia,serif;margin:16px;background:#fff;color:#111}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}}
.slot{margin:12px 0;max-width:520px}
/* a careless host stylesheet: none of it may reach inside a widget */
.w,.num,.list,.title,.credit,.legend,svg,canvas,li{display:none!important;color:red!important}
`;

export async function startHostSite(sightlineOrigin: string): Promise<HostSite> {
  const pages = new Map<string, string>();
  const csp = [
    "default-src 'none'",
    `script-src ${sightlineOrigin}`,
    `connect-src ${sightlineOrigin}`,
    "style-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname === '/host.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      return res.end(HOST_CSS);
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      return res.end();
    }
    const body = pages.get(url.pathname);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp, 'cache-control': 'no-store' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A host page</title><link rel="stylesheet" href="/host.css"></head>
<body><header><h1>A site owner's page</h1></header><main><p id="host-text">The host's own content stays as it is.</p>${body}</main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(name, body) {
      pages.set(`/${name}`, body);
      return `${origin}/${name}`;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The snippet an owner pastes, with extra data attributes. */
export function snippet(base: string, type: string, key: string, target: string, attrs: Record<string, string> = {}): string {
  const extra = Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`)
    .join('');
  return `<div class="slot" id="${target}"></div>\n<script async src="${base}/widgets/v1/${type}.js" data-key="${key}" data-target="${target}"${extra}></script>`;
}
