/**
 * Recently seen publisher message ids, like JetStream's duplicate window: a second
 * publish with the same id inside the window is dropped (and still reported as
 * stored, because the first one was).
 */
export const DEFAULT_DEDUPE_WINDOW_MS = 2 * 60_000;

export class DedupeWindow {
  // Map keeps insertion order, which is time order, so pruning only looks at the front.
  private readonly seenAt = new Map<string, number>();

  constructor(readonly windowMs: number = DEFAULT_DEDUPE_WINDOW_MS) {}

  isDuplicate(msgId: string, now: number): boolean {
    this.prune(now);
    return this.seenAt.has(msgId);
  }

  remember(msgId: string, at: number): void {
    this.seenAt.delete(msgId);
    this.seenAt.set(msgId, at);
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    for (const [id, at] of this.seenAt) {
      if (at >= cutoff) break;
      this.seenAt.delete(id);
    }
  }
}
