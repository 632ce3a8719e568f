/**
 * `limits`: a message stays until it is older than `maxAgeMs`, consumed or not (a
 * durable created later still sees it). `workqueue`: a message is removed as soon
 * as the one durable whose filter matches it has acked it (`maxAgeMs` stays as a
 * backstop); two durables whose filters overlap are refused, as JetStream does.
 */
export type StreamRetention = 'limits' | 'workqueue';

export interface StreamConfig {
  /** Stream name, e.g. `EVENTS_WQ`. */
  name: string;
  /** Subjects captured by the stream, NATS syntax (`events.>`). */
  subjects: string[];
  /** Messages are dropped past this age (ms), consumed or not; unset keeps them indefinitely. */
  maxAgeMs?: number;
  /** Default `limits`. JetStream cannot change it in place: a change needs a new stream name (see `supersedes`). */
  retention?: StreamRetention;
  /**
   * An earlier stream this one replaces (e.g. a retention change). ensureStreams
   * narrows it to `narrowTo` (subjects the new stream does not capture, so both can
   * exist and its stored messages stay readable) and deletes it once it holds no
   * message.
   */
  supersedes?: { name: string; narrowTo: string[] };
}
