import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The image built with EMBEDDED_CLICKHOUSE=false has no @chdb/* native library. A
// process that still opens the embedded store must say what to do, not fail obscurely.
// Here a child process hides the native package from require() as that image would.
const dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-no-chdb-'));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the embedded store without the chDB engine installed', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails to open with EMBEDDED_ENGINE_MISSING and points to CLICKHOUSE_URL', () => {
    const hide = path.join(dir, 'hide-chdb.cjs');
    writeFileSync(
      hide,
      `const Module = require('node:module');
       const resolve = Module._resolveFilename;
       Module._resolveFilename = function (request, ...rest) {
         if (request.startsWith('@chdb/')) { const e = new Error("Cannot find module '" + request + "'"); e.code = 'MODULE_NOT_FOUND'; throw e; }
         return resolve.call(this, request, ...rest);
       };`,
    );
    const script = `
      import { ChdbEventStore } from './libs/event-store/src/index.ts';
      try { await ChdbEventStore.open({ path: ${JSON.stringify(path.join(dir, 'data'))} }); console.log('opened'); }
      catch (e) { console.log(JSON.stringify({ name: e.name, type: e.type, message: e.message })); }`;
    const child = spawnSync(process.execPath, ['-r', hide, '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const outcome = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as { name?: string; type?: string; message?: string };
    expect(outcome.name).toBe('EventStoreError');
    expect(outcome.type).toBe('EMBEDDED_ENGINE_MISSING');
    expect(outcome.message).toMatch(/set CLICKHOUSE_URL/);
  });
});
