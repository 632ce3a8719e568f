import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** Runs `npm run admin -- mint-key …` as an operator would and returns the printed token. */
export async function mintKey(options: { email: string; permissions: string; databaseUrl?: string; dataDir: string }): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(ROOT, 'apps/identity/src/admin/cli.ts'),
      'mint-key',
      '--email',
      options.email,
      '--permissions',
      options.permissions,
      '--name',
      'billing',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, SIGHTLINE_DATA_DIR: options.dataDir, ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}), LOG_LEVEL: 'silent' },
    },
  );
  const token = /\bsl_[A-Za-z0-9]+/.exec(stdout)?.[0];
  if (!token) throw new Error(`mint-key printed no token:\n${stdout}`);
  return token;
}
