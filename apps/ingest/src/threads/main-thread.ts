import type { MessagePort } from 'node:worker_threads';
import { activeSpanContextRecord } from '@sightline/telemetry';
import type { FromWorker, ToWorker, WorkerCall } from './worker-messages.js';

/** A worker's calls to the main thread: each one answered by a `reply` with its id. */
export class MainThread {
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private next = 0;

  constructor(private readonly port: MessagePort) {}

  call<T>(call: WorkerCall, transfer?: ArrayBuffer[]): Promise<T> {
    const id = (this.next += 1);
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const parent = activeSpanContextRecord();
      this.post(parent ? { t: 'call', id, call, parent } : { t: 'call', id, call }, transfer);
    });
  }

  /** Settles the call a reply answers. */
  settle(reply: Extract<ToWorker, { t: 'reply' }>): void {
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(new Error(reply.error));
  }

  post(message: FromWorker, transfer?: ArrayBuffer[]): void {
    this.port.postMessage(message, transfer);
  }
}
