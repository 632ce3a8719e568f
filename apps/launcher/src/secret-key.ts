import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '@sightline/config';

/**
 * The server secret that keys the hashes of one-time codes and the widget keys. A single-process
 * install gets one generated on first start and kept in the data dir (0600), so
 * `npm start` needs no set-up and codes survive restarts. A service running alone
 * must be given SECRET_KEY: replicas must share it.
 */
export async function withSecretKey(config: Config, target: string): Promise<Config> {
  if (config.SECRET_KEY) return config;
  if (target !== 'all') {
    throw new Error(`--target=${target} needs SECRET_KEY (at least 32 characters, the same on every replica)`);
  }
  const file = path.join(config.dataDir, 'secret-key');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return { ...config, SECRET_KEY: existing };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // 'wx': never overwrite a key another process wrote in the meantime
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return { ...config, SECRET_KEY: (await readFile(file, 'utf8')).trim() };
}
