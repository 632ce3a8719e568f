/**
 * Child process for the LocalBus crash test: opens a journal, starts a consumer
 * that never finishes (work in progress at crash time), publishes N messages, says
 * so on stdout once the consumer holds all of them, and waits to be SIGKILLed.
 *
 * usage: node --import tsx publish-then-hang.ts <journalDir> <stream> <subject> <count>
 */
import { LocalBus } from '../local-bus.js';
import type { UntypedSubjects } from '../bus.js';

const [journalDir, stream, subject, countArg] = process.argv.slice(2);
if (!journalDir || !stream || !subject || !countArg) throw new Error('usage: <journalDir> <stream> <subject> <count>');
const count = Number(countArg);

const bus = new LocalBus<UntypedSubjects>({ journalDir });
await bus.ensureStreams([{ name: stream, subjects: [`${subject.split('.')[0]}.>`] }]);
let received = 0;
await bus.consume({
  stream,
  durable: 'ingest',
  handler: () => {
    received++;
    return new Promise<void>(() => {}); // never acks: the crash interrupts this work
  },
});
for (let i = 0; i < count; i++) await bus.publish(subject, { i });
const waitForAll = setInterval(() => {
  if (received < count) return;
  clearInterval(waitForAll);
  process.stdout.write(`published ${count}\n`);
}, 5);
setInterval(() => {}, 60_000); // stay alive until killed
