/**
 * TEST FIXTURE: the real pipeline worker, which dies like a crashed thread at the
 * worst moment: right after the main thread confirms the events insert of a batch
 * holding a first delivery of a page whose path contains `/die`, before that
 * batch's sessions are written. Redeliveries never trigger it, so its replacement
 * lives on.
 */
import { parentPort } from 'node:worker_threads';
import '../pipeline-worker.js';
import type { ToWorker } from '../worker-messages.js';

let armed = false;
parentPort!.on('message', (message: ToWorker) => {
  if (message.t === 'events') {
    armed ||= message.events.some((e) => !e.redelivered && typeof e.raw === 'string' && e.raw.includes('/die'));
  } else if (message.t === 'reply' && armed && message.ok) {
    // the first answer after that batch: its events insert (the visitors are known, no salt is asked)
    process.exit(70);
  }
});
