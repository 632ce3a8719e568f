// A reverse proxy process, as an ingress controller is: it forwards every request to
// the upstream and appends the address it was connected from to X-Forwarded-For.
// Its clients are loopback addresses (127.0.0.2, ...); `--clients` maps each to the
// public address it stands for, the internet this machine does not have.
//   node --import tsx forwarding-proxy-main.ts --upstream=http://127.0.0.1:8080 --clients='{"127.0.0.2":"8.8.8.8"}'
// Prints "proxy listening on <port>" once it accepts connections.
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, clients: { type: 'string', default: '{}' } } });
const upstream = new URL(values.upstream!);
const clients = JSON.parse(values.clients!) as Record<string, string>;

const server = http.createServer((request, response) => {
  const peer = request.socket.remoteAddress ?? '';
  const client = clients[peer.replace(/^::ffff:/, '')] ?? peer;
  const forwarded = request.headers['x-forwarded-for'];
  const headers = { ...request.headers, 'x-forwarded-for': forwarded ? `${String(forwarded)}, ${client}` : client };
  const outgoing = http.request(
    // from 127.0.0.1, the one address the gateway is told to trust
    { host: upstream.hostname, port: Number(upstream.port), localAddress: '127.0.0.1', method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  outgoing.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(outgoing);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`proxy listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
