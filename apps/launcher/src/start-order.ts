import type { LaunchableModule, ServiceName } from '@sightline/runtime';

/**
 * The order to start services in one process: a service after every service it
 * calls that runs in the same process (its clients need their loopback addresses,
 * known once they listen). Ties keep the given order; a cycle is refused.
 */
export function startOrder(names: readonly ServiceName[], modules: Record<ServiceName, Pick<LaunchableModule, 'calls'>>): ServiceName[] {
  const ordered: ServiceName[] = [];
  const pending = [...names];
  while (pending.length > 0) {
    const ready = pending.find((name) => (modules[name].calls ?? []).every((called) => ordered.includes(called) || !names.includes(called)));
    if (!ready) throw new Error(`services call each other in a cycle: ${pending.join(', ')}`);
    ordered.push(ready);
    pending.splice(pending.indexOf(ready), 1);
  }
  return ordered;
}
