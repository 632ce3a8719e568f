import { backendGate, makeTempDir } from '@sightline/testkit';
import { describe, expect, it } from 'vitest';
import { LocalBus } from './local-bus.js';
import { NatsBus } from './nats-bus.js';
import { openBus } from './open-bus.js';
import type { UntypedSubjects } from './bus.js';

const gate = await backendGate('nats');

describe('openBus', () => {
  it('opens a memory-only LocalBus without natsUrl or journalDir', async () => {
    const bus = await openBus<UntypedSubjects>({});
    try {
      expect(bus).toBeInstanceOf(LocalBus);
      expect(bus.kind).toBe('local');
      await bus.ping();
    } finally {
      await bus.close();
    }
  });

  it('opens a journaled LocalBus with journalDir', async () => {
    const dir = await makeTempDir();
    try {
      const bus = await openBus<UntypedSubjects>({ journalDir: dir.path });
      await bus.ensureStreams([{ name: 'S', subjects: ['s.>'] }]);
      await bus.publish('s.a', 1);
      await bus.close();
      const reopened = await openBus<UntypedSubjects>({ journalDir: dir.path });
      try {
        expect((reopened as LocalBus).streamStats('S')?.lastSeq).toBe(1);
      } finally {
        await reopened.close();
      }
    } finally {
      await dir.remove();
    }
  });

  it.skipIf(!gate.available)('opens a NatsBus when natsUrl is set, even with a journalDir', async () => {
    const bus = await openBus<UntypedSubjects>({ natsUrl: gate.url, journalDir: '/nonexistent' });
    try {
      expect(bus).toBeInstanceOf(NatsBus);
      await bus.ping();
    } finally {
      await bus.close();
    }
  });
});
