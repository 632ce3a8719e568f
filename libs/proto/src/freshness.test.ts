import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';

// The generated code is committed so `npm start` needs no code generation. This
// test regenerates it from proto/ and fails when the committed copy is stale.
const root = path.resolve(import.meta.dirname, '../../..');

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

describe('generated protos', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => Promise.all(cleanups.map((c) => c())));

  it('match what buf generates from proto/', async () => {
    const tmp = await makeTempDir('sightline-proto-');
    cleanups.push(tmp.remove);
    execFileSync(path.join(root, 'node_modules/.bin/buf'), ['generate', '-o', tmp.path], { cwd: root });
    const fresh = path.join(tmp.path, 'libs/proto/src/gen');
    const committed = path.join(root, 'libs/proto/src/gen');
    const files = listFiles(fresh).sort();
    expect(listFiles(committed).sort()).toEqual(files);
    for (const file of files) {
      expect(readFileSync(path.join(committed, file), 'utf8'), `${file} is stale: run npm run proto:gen`).toBe(readFileSync(path.join(fresh, file), 'utf8'));
    }
  });
});
