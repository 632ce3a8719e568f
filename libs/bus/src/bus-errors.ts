/**
 * Errors both adapters raise in the same situations, so callers (and the contract
 * tests) can tell them apart without knowing which adapter is underneath.
 */

/** `publish` to a subject no stream captures: the message was NOT stored. */
export class NoStreamForSubjectError extends Error {
  override readonly name = 'NoStreamForSubjectError';
  constructor(
    readonly subject: string,
    options?: ErrorOptions,
  ) {
    super(`no stream captures subject "${subject}"; the message was not stored (call ensureStreams with a stream covering it)`, options);
  }
}

/**
 * `publish` to a stream of the in-process bus that holds its byte limit already
 * (`maxStreamBytes`): the message was NOT stored. Room comes back as consumers ack.
 * (NatsBus passes on JetStream's own refusals, e.g. storage exhausted, as they come.)
 */
export class StreamFullError extends Error {
  override readonly name = 'StreamFullError';
  constructor(
    readonly stream: string,
    readonly limitBytes: number,
    options?: ErrorOptions,
  ) {
    super(`stream "${stream}" holds its limit of ${limitBytes} bytes of unconsumed messages; the message was not stored`, options);
  }
}

/** `consume` on a stream that `ensureStreams` never created. */
export class StreamNotFoundError extends Error {
  override readonly name = 'StreamNotFoundError';
  constructor(
    readonly stream: string,
    options?: ErrorOptions,
  ) {
    super(`stream "${stream}" does not exist (call ensureStreams first)`, options);
  }
}

/** Any operation on a bus after `close()`. */
export class BusClosedError extends Error {
  override readonly name = 'BusClosedError';
  constructor(kind: string) {
    super(`${kind} bus is closed`);
  }
}

/**
 * `consume` on a work-queue stream with a durable whose filter overlaps another
 * durable's: each message of a work queue belongs to exactly one durable.
 */
export class WorkQueueConflictError extends Error {
  override readonly name = 'WorkQueueConflictError';
  constructor(
    readonly stream: string,
    readonly durable: string,
    options?: ErrorOptions & { detail?: string },
  ) {
    super(
      `durable "${durable}" overlaps another durable of work-queue stream "${stream}"${options?.detail ? ` (${options.detail})` : ''}: give each durable its own filter subject`,
      options,
    );
  }
}
