import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WidgetsManifest } from '@sightline/widgets';

/**
 * The widgets built for this process (apps/widgets's `buildWidgets`, the build seam of
 * the contract) into its own temp dir, once: test files run in parallel processes, so
 * none may write the shared apps/widgets/dist under another's feet.
 */
let built: Promise<{ dir: string; manifest: WidgetsManifest }> | undefined;

export function widgetsBuild(): Promise<{ dir: string; manifest: WidgetsManifest }> {
  built ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sightline-widgets-test-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const { buildWidgets } = await import('@sightline/widgets');
    return { dir, manifest: await buildWidgets({ outDir: dir, minify: true }) };
  })();
  return built;
}
