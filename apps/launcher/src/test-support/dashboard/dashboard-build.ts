import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The dashboard built for this process (apps/dashboard's `buildDashboard`, the build
 * seam of the contract) into its own temp dir, once: test files run in parallel
 * processes, so none may write the shared apps/dashboard/dist under another's feet.
 */
let built: Promise<string> | undefined;

export function dashboardBuildDir(): Promise<string> {
  built ??= (async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'sightline-dashboard-test-'));
    process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
    const { buildDashboard } = await import('@sightline/dashboard');
    await buildDashboard({ outDir, minify: true });
    return outDir;
  })();
  return built;
}
