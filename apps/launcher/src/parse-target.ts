import { SERVICE_NAMES, isServiceName, type ServiceName } from '@sightline/runtime';

export type Target = 'all' | 'gateway' | ServiceName;

/** `migrate` is no running target: it applies every migration and exits (Helm hook). */
export type Command = Target | 'migrate';

export const TARGETS: readonly Command[] = ['all', 'gateway', ...SERVICE_NAMES, 'migrate'];

/** `--target=<name>` (or `--target <name>`); default `all`, like Loki/Mimir's single binary. */
export function parseTarget(argv: readonly string[]): Command {
  let value = 'all';
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg.startsWith('--target=')) value = arg.slice('--target='.length);
    else if (arg === '--target' && argv[i + 1]) value = argv[++i]!;
    else if (arg === '--help' || arg === '-h') value = 'help';
  }
  if (value === 'all' || value === 'gateway' || value === 'migrate' || isServiceName(value)) return value;
  throw new Error(`unknown target "${value}"; expected one of: ${TARGETS.join(', ')}`);
}
