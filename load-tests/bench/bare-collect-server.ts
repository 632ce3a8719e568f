// The reference point of the collection bench: a bare fastify endpoint that only
// parses the tracker's text/plain JSON body and answers 202. Run as its own process
// (like the launcher), it prints `listening <url>` once ready.
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 8 * 1024 });
app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
  try {
    done(null, JSON.parse(body as string));
  } catch (error) {
    done(error as Error, undefined);
  }
});
app.post('/api/event', async (_request, reply) => reply.code(202).send());
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening ${url}`);
// exits rather than dies on SIGTERM, so a CPU profile (--cpu-prof) of it gets written
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
