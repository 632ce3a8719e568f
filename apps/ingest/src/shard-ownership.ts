/**
 * Which event shards this ingest replica consumes. A visitor's events always land on
 * one shard (the gateway hashes tracking key + tab marker, else IP + UA), and a
 * shard is consumed by exactly one replica, so one visitor's events always meet the
 * same in-memory session cache. Replica i of N owns the shards s with s % N == i;
 * every shard has its own durable consumer (`ingest-<s>`), which the work-queue
 * stream requires (no two consumers may overlap).
 *
 * N and i are fixed for a replica's life (a StatefulSet's ordinal: `POD_NAME`
 * ending in `-<i>`). Changing N re-deals shards: roll all ingest replicas, and a
 * visit that spans the change may be split in two.
 */
export interface ShardOwnership {
  shards: number[];
  replica: number;
  replicas: number;
}

export function ownedShards(options: { eventShards: number; replicas: number; replicaIndex?: number; podName?: string }): ShardOwnership {
  const { eventShards, replicas } = options;
  const replica = options.replicaIndex ?? ordinalOf(options.podName) ?? 0;
  if (!Number.isSafeInteger(replicas) || replicas < 1) throw new RangeError(`INGEST_REPLICAS must be ≥ 1, got ${replicas}`);
  if (replica >= replicas) throw new RangeError(`ingest replica ${replica} is outside INGEST_REPLICAS=${replicas}`);
  if (replicas > eventShards) throw new RangeError(`INGEST_REPLICAS=${replicas} exceeds EVENT_SHARDS=${eventShards}: some replicas would own nothing`);
  const shards: number[] = [];
  for (let s = replica; s < eventShards; s += replicas) shards.push(s);
  return { shards, replica, replicas };
}

/** `sightline-ingest-3` → 3 (a StatefulSet pod name); undefined otherwise. */
function ordinalOf(podName: string | undefined): number | undefined {
  const match = podName ? /-(\d+)$/.exec(podName) : null;
  return match ? Number(match[1]) : undefined;
}

export const shardDurable = (shard: number): string => `ingest-${shard}`;
