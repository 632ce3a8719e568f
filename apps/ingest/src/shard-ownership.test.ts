import { describe, expect, it } from 'vitest';
import { ownedShards, shardDurable } from './shard-ownership.js';

describe('ownedShards', () => {
  it('gives one replica every shard', () => {
    expect(ownedShards({ eventShards: 8, replicas: 1 }).shards).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('deals shards round-robin so replicas never overlap and together cover all', () => {
    const all = [0, 1, 2].map((i) => ownedShards({ eventShards: 8, replicas: 3, replicaIndex: i }).shards);
    expect(all).toEqual([
      [0, 3, 6],
      [1, 4, 7],
      [2, 5],
    ]);
    expect(all.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('reads the replica from a StatefulSet pod name', () => {
    expect(ownedShards({ eventShards: 8, replicas: 4, podName: 'rel-sightline-ingest-2' })).toEqual({ shards: [2, 6], replica: 2, replicas: 4 });
  });

  it('refuses impossible layouts', () => {
    expect(() => ownedShards({ eventShards: 8, replicas: 2, replicaIndex: 2 })).toThrow(/outside/);
    expect(() => ownedShards({ eventShards: 2, replicas: 3 })).toThrow(/exceeds/);
    expect(() => ownedShards({ eventShards: 8, replicas: 0 })).toThrow(/≥ 1/);
  });

  it('names one durable per shard', () => {
    expect(shardDurable(5)).toBe('ingest-5');
  });
});
