import { describe, expect, it } from 'vitest';
import { AccessLogThrottle } from './access-log-throttle.js';

describe('AccessLogThrottle', () => {
  it('admits a burst per window and route/status, then says how many lines it demoted', () => {
    let now = 1_000_000;
    const throttle = new AccessLogThrottle(3, 10_000, () => now);
    const admitted = () => throttle.admit('/api/event', 404);
    expect([admitted(), admitted(), admitted()]).toEqual([{ suppressed: 0 }, { suppressed: 0 }, { suppressed: 0 }]);
    expect([admitted(), admitted()]).toEqual([undefined, undefined]);
    // another status and another route have windows of their own
    expect(throttle.admit('/api/event', 400)).toEqual({ suppressed: 0 });
    expect(throttle.admit('/readyz', 404)).toEqual({ suppressed: 0 });
    now += 9_999;
    expect(admitted()).toBeUndefined();
    now += 1; // the window has passed: the first line reports the three demoted ones
    expect(admitted()).toEqual({ suppressed: 3 });
    expect(admitted()).toEqual({ suppressed: 0 });
  });
});
