import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

/** A DNS server on loopback UDP whose A records a test changes as replicas come and go. */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`: the authority of a `dns://127.0.0.1:<port>/name:port` gRPC target */
  address: string;
  /** the A records `name` answers from now on (a headless Service's ready pods) */
  setAddresses(name: string, addresses: readonly string[]): void;
  /** how many A questions `name` was asked (a client re-resolving) */
  questions(name: string): number;
  close(): Promise<void>;
}

/**
 * Answers A questions for the names it was given, TTL 0, with what a Kubernetes headless
 * Service's DNS answers: one record per ready pod. Any other name or type: NXDOMAIN /
 * no answer. Test infrastructure only, bound to 127.0.0.1.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, readonly string[]>();
  const asked = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return; // not DNS: no answer
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    const known = records.get(name);
    if (question.type === 'A') asked.set(name, (asked.get(name) ?? 0) + 1);
    const answers =
      question.type === 'A' && known ? known.map((ip) => ({ type: 'A' as const, name: question.name, ttl: 0, class: 'IN' as const, data: ip })) : [];
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      // authoritative answer, recursion desired/available; NXDOMAIN (rcode 3) for a name it does not know
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : 3),
      questions: [question],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: '127.0.0.1', port: 0 }, () => resolve());
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setAddresses: (name, addresses) => records.set(name.toLowerCase(), [...addresses]),
    questions: (name) => asked.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
