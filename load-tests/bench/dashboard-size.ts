import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDashboard, type DashboardFile } from '@sightline/dashboard';

/**
 * `npm run bench -- dashboard-size`: builds the dashboard (minified) and prints the
 * bytes each page route loads, raw / gzip / brotli, JS and CSS, beside the issue's
 * budget of 100 KB gzip of JavaScript on first load (the ratio). The sign-in page
 * (`/`) loads the entry and its static chunks; the dashboards (`/sites/:id`,
 * `/share/:hash`) also load the map chunk at once (the Locations panel opens on the map).
 */
const BUDGET_GZIP = 100 * 1024;

function staticImports(code: string): string[] {
  return [...code.matchAll(/(?:import|from)\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1]!);
}
function dynamicImports(code: string): string[] {
  return [...code.matchAll(/import\(\s*"\.\/([^"]+\.js)"\s*\)/g)].map((m) => m[1]!);
}

export async function benchDashboardSize(): Promise<Record<string, string | number>> {
  const outDir = await mkdtemp(join(tmpdir(), 'sightline-dashboard-'));
  try {
    const started = performance.now();
    const manifest = await buildDashboard({ outDir, minify: true });
    const buildMs = performance.now() - started;
    const byName = new Map(manifest.files.map((f) => [f.path.replace(/^assets\//, ''), f]));
    const code = async (name: string) => readFile(join(outDir, 'assets', name), 'utf8');

    // the files a route loads: the entry's static import closure, optionally its dynamic imports' closures too
    const closure = async (roots: string[], followDynamic: boolean): Promise<Set<string>> => {
      const seen = new Set<string>();
      const queue = [...roots];
      while (queue.length) {
        const name = queue.shift()!;
        if (seen.has(name)) continue;
        seen.add(name);
        const text = await code(name);
        queue.push(...staticImports(text), ...(followDynamic ? dynamicImports(text) : []));
      }
      return seen;
    };
    const entry = manifest.entry.replace(/^assets\//, '');
    const routes: [string, Set<string>][] = [
      ['sign-in and sites list (/)', await closure([entry], false)],
      ['dashboard (/sites/:id, /share/:hash)', await closure([entry], true)],
    ];
    const css = byName.get(manifest.css.replace(/^assets\//, ''))!;
    const sum = (files: DashboardFile[], key: 'bytes' | 'gzip' | 'br') => files.reduce((total, f) => total + f[key], 0);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

    const figures: Record<string, string | number> = { 'build time (ms)': Math.round(buildMs) };
    for (const file of manifest.files.filter((f) => !f.path.endsWith('.css'))) {
      figures[`file ${file.path}: raw / gzip / br`] = `${kb(file.bytes)} / ${kb(file.gzip)} / ${kb(file.br)}`;
    }
    for (const [route, names] of routes) {
      const files = [...names].map((n) => byName.get(n)!);
      const gzip = sum(files, 'gzip');
      figures[`${route}: JS files`] = files.length;
      figures[`${route}: JS raw / gzip / br`] = `${kb(sum(files, 'bytes'))} / ${kb(gzip)} / ${kb(sum(files, 'br'))}`;
      figures[`${route}: JS gzip vs the 100 KB budget (ratio)`] = (gzip / BUDGET_GZIP).toFixed(2);
      figures[`${route}: CSS raw / gzip / br`] = `${kb(css.bytes)} / ${kb(css.gzip)} / ${kb(css.br)}`;
    }
    return figures;
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
