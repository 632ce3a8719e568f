import { getHeapSpaceStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { startIdleGc, type IdleGc } from './idle-gc.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `idleGc` has run `count` collections (a loaded machine stretches the quiet period's reads); at most 20 s. */
async function collectionsReach(idleGc: IdleGc, count: number): Promise<number> {
  for (let waited = 0; idleGc.collections < count && waited < 20_000; waited += 100) await sleep(100);
  // and the second collection of the pair, a second later
  await sleep(1_200);
  return idleGc.collections;
}

/** Keeps the event loop busy (well above 5 % of the time) for `ms`. */
async function work(ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const spin = performance.now() + 20;
    while (performance.now() < spin);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('startIdleGc', { timeout: 60_000 }, () => {
  let idleGc: IdleGc | undefined;
  afterEach(() => idleGc?.stop());

  it('collects once the loop has been quiet after work: garbage only a full collection frees is gone', async () => {
    const collected: number[] = [];
    idleGc = startIdleGc({ idleMs: 300, checkMs: 100, onCollect: (_before, after) => collected.push(after) });
    // an object in the large-object space: no scavenge frees it, only a full collection
    let big: number[] | undefined = new Array(2_000_000).fill(1);
    const gone = new WeakRef(big);
    big = undefined;
    await work(300);
    expect(await collectionsReach(idleGc, 1)).toBe(1);
    expect(collected).toHaveLength(1);
    expect(gone.deref()).toBeUndefined();
  });

  it('does not collect while the loop stays busy', async () => {
    idleGc = startIdleGc({ idleMs: 300, checkMs: 100 });
    await work(1_500);
    expect(idleGc.collections).toBe(0);
  });

  it('collects once per quiet period: again only after more work', async () => {
    idleGc = startIdleGc({ idleMs: 300, checkMs: 100 });
    await work(200);
    expect(await collectionsReach(idleGc, 1)).toBe(1);
    await sleep(1_500);
    expect(idleGc.collections).toBe(1);
    await work(300);
    expect(await collectionsReach(idleGc, 2)).toBe(2);
  });

  // last: the garbage it leaves would make the other tests' quiet periods busy
  it('compacts: the old generation gives back the pages its garbage leaves sparse', async () => {
    const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!;
    // two million objects that live long enough to be promoted, then 95 % of them dropped:
    // every old page keeps a few survivors, which only a compacting collection moves together
    let survivors: Array<{ n: number; s: string; a: number[] }> = [];
    for (let i = 0; i < 2_000_000; i += 1) survivors.push({ n: i, s: `s${i}`, a: [i] });
    survivors = survivors.filter((_, i) => i % 20 === 0);
    const before = oldSpace();
    idleGc = startIdleGc({ idleMs: 300, checkMs: 100 });
    await work(200);
    expect(await collectionsReach(idleGc, 1)).toBe(1);
    const after = oldSpace();
    expect(survivors).toHaveLength(100_000);
    // held well above used before; after, close to it (a plain full collection kept ~10x)
    expect(before.space_size).toBeGreaterThan(32 * 2 ** 20);
    expect(after.space_size).toBeLessThan(2 * after.space_used_size + 16 * 2 ** 20);
  });
});
