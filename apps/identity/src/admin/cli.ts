// Operator commands for the identity service:
//   node --import tsx apps/identity/src/admin/cli.ts mint-key --email … --permissions …
import { parseArgs } from 'node:util';
import { loadConfig } from '@sightline/config';
import { systemClock } from '@sightline/runtime';
import { IDENTITY_MIGRATIONS_DIR, IDENTITY_SCHEMA } from '../migrations-dir.js';
import { UsageError, mintOperatorKey, operatorKeyInput } from './mint-operator-key.js';

const HELP = `Usage: identity-admin mint-key --email <address> --permissions <p1,p2,…> [--name <label>] [--expires-in-days <1..365>]

Mints an API key for an EXISTING account with any permissions, billing:write
included (registration can never grant billing:write). The token is printed once,
alone on stdout; keep it, it cannot be shown again.

  --email            the account's address (it must have registered through verify-otp)
  --permissions      comma-separated: stats:read, sites:write, keys:write, billing:write
  --name             the key's label (default: operator)
  --expires-in-days  1 to 365 (default: 90)

The database comes from the same environment as the server (DATABASE_URL, or the
embedded PGlite in SIGHTLINE_DATA_DIR). With the embedded PGlite, stop the server
first: one data directory can only be opened by one process at a time.

Exit codes: 0 minted, 2 usage error, 1 failure.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        permissions: { type: 'string' },
        name: { type: 'string', default: 'operator' },
        'expires-in-days': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'mint-key') return usage(`unknown command ${JSON.stringify(positionals.join(' '))}`);
  if (!values.email || !values.permissions) return usage('--email and --permissions are required');
  const days = values['expires-in-days'];
  if (days !== undefined && !/^\d+$/.test(days)) return usage('--expires-in-days must be a whole number');

  let input;
  try {
    input = operatorKeyInput({
      email: values.email,
      permissions: values.permissions,
      name: values.name,
      expiresInDays: days === undefined ? undefined : Number(days),
    });
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }

  const config = loadConfig();
  // loaded only now: a usage error answers without starting a database driver
  const { openDb, runMigrations } = await import('@sightline/db');
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  try {
    await runMigrations(db, { schema: IDENTITY_SCHEMA, dir: IDENTITY_MIGRATIONS_DIR });
    const created = await mintOperatorKey(db, input, systemClock(), config.KEYS_PER_ACCOUNT);
    const key = created.key;
    console.error(
      `Minted ${key.id} "${key.name}" for ${input.email}: ${key.permissions.join(', ')}, all sites, expires ${key.expires_at.toISOString()}. The token follows; it is shown only this once.`,
    );
    console.log(created.token);
    return 0;
  } finally {
    await db.close();
  }
}

function usage(problem: string): number {
  console.error(`identity-admin: ${problem}\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`identity-admin: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
