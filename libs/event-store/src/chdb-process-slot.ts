import path from 'node:path';

/**
 * chDB binds ONE data directory per process. This slot tracks which directory
 * the process holds and how many users (stores, the test facade) share it, so a
 * second directory fails fast with a message that says what to do — instead of
 * chDB's own error, or worse, a half-open engine.
 *
 * Same directory: allowed. Every holder gets its own chDB Session (connection)
 * over the one engine; chDB supports that by design. Different directory: refused
 * until every holder of the current one has closed.
 *
 * The state lives on globalThis so that two copies of this module (e.g. test
 * runners re-evaluating modules) still guard the one engine.
 */
interface SlotState {
  dir: string;
  holders: number;
  /** set while the last holder's native work drains */
  releasing: Promise<void> | undefined;
}

const SLOT_KEY = Symbol.for('@sightline/event-store/chdb-process-slot');
type SlotHost = { [SLOT_KEY]?: SlotState };
const host = globalThis as SlotHost;

/**
 * Claims the process's chDB data directory for one holder. Resolves to a
 * `release` function (idempotent). Throws if another directory is held.
 */
export async function acquireChdbDataDir(dir: string): Promise<() => Promise<void>> {
  const wanted = path.resolve(dir);
  let slot = host[SLOT_KEY];
  if (slot?.releasing && slot.holders === 0 && slot.dir !== wanted) await slot.releasing;
  slot = host[SLOT_KEY];
  if (slot && (slot.holders > 0 || slot.releasing) && slot.dir !== wanted) {
    throw new Error(
      `chDB allows one data directory per process: ${slot.dir} is already open ` +
        `(${slot.holders} open store(s)). Close those stores before opening ${wanted}, ` +
        'or use the same directory (stores on one directory share the engine).',
    );
  }
  if (!slot || slot.dir !== wanted) {
    slot = { dir: wanted, holders: 0, releasing: undefined };
    host[SLOT_KEY] = slot;
  }
  slot.holders += 1;
  const held = slot;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.holders -= 1;
    if (held.holders > 0) return;
    // A closed Session may still be finishing native work; a different
    // directory can only open once that has landed.
    // chDB is loaded already: a holder opened a Session (importing it here would load it for everyone).
    const draining = import('chdb')
      .then(({ drainPending }) => drainPending())
      .finally(() => {
        if (held.releasing === draining) held.releasing = undefined;
        if (held.holders === 0 && host[SLOT_KEY] === held) delete host[SLOT_KEY];
      });
    held.releasing = draining;
    await draining;
  };
}
