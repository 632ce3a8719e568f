import net from 'node:net';

// Linux hands out ports for bind(0) from 32768–60999 (ip_local_port_range). A port
// probed there and closed can be taken by any process binding port 0 before the
// child told to use it listens (EADDRINUSE, seen in CI with many launchers in
// parallel). Ports below that range are never handed out by the kernel, so only
// another explicit pick could collide, and the probe catches any that is held.
const LOW = 20_000;
const HIGH = 32_767;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A loopback port free right now, outside the kernel's ephemeral range, for a child process to listen on. */
export async function freeLoopbackPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${LOW}–${HIGH} after 200 tries`);
}
