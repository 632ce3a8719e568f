import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RUN_ALL = path.join(ROOT, 'load-tests/bench/run-all.ts');
// the names, read from the catalogue's source: importing it would load every bench (chDB among them)
const names = [...readFileSync(path.join(import.meta.dirname, 'catalogue.ts'), 'utf8').matchAll(/\{\s*name: '([^']+)'/g)].map((m) => m[1]!);

describe('npm run bench -- --help', () => {
  it('lists every bench with its knobs and runs none', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', RUN_ALL, '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(names.length).toBeGreaterThanOrEqual(11);
    for (const name of names) expect(run.stdout).toContain(`  ${name} `);
    expect(run.stdout).toContain('knobs: BENCH_COLLECT_ROUNDS');
    expect(run.stdout).not.toContain('## ');
  });

  it('refuses a word no bench name contains, with the list', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', RUN_ALL, 'no-such-bench'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no bench matches "no-such-bench"');
    expect(run.stderr).toContain('launcher and edge');
  });

  it('is described, every bench and its knobs, in load-tests/README.md', () => {
    const readme = readFileSync(path.join(ROOT, 'load-tests/README.md'), 'utf8');
    const catalogue = readFileSync(path.join(import.meta.dirname, 'catalogue.ts'), 'utf8');
    for (const name of names) expect(readme, name).toContain(`### ${name}`);
    const knobs = [...catalogue.matchAll(/knobs: \[([^\]]*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/'([A-Z_]+)'/g)].map((k) => k[1]!));
    expect(knobs).toContain('QUERY_BENCH_DATA_DIR');
    for (const knob of knobs) expect(readme, knob).toContain(`\`${knob}\``);
    for (const scenario of ['tracker-burst', 'dashboard-queries', 'control-plane']) expect(readme).toContain(scenario);
  });
});
