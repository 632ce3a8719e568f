import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { registerErrorRenderer } from '../edge/render-error.js';
import { widgetScriptRoutes } from '../routes/widget-scripts.js';
import { loadWidgetsDist } from './widgets-dist.js';

const TYPES = ['globe', 'live-users', 'map', 'countries'];
const manifestOf = (paths: Record<string, string>) => ({
  widgets: Object.fromEntries(Object.entries(paths).map(([type, p]) => [type, { path: p, bytes: 1 }])),
});

describe('loadWidgetsDist', () => {
  it('is undefined without a manifest (not built)', async () => {
    const dir = await makeTempDir();
    try {
      expect(await loadWidgetsDist(dir.path)).toBeUndefined();
      expect(await loadWidgetsDist(path.join(dir.path, 'missing'))).toBeUndefined();
    } finally {
      await dir.remove();
    }
  });

  it('refuses a manifest missing a widget, or naming a path outside the build', async () => {
    const good = Object.fromEntries(TYPES.map((t) => [t, `${t}.abc123.js`]));
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ ...good, globe: '../secret.js' }, /no safe bundle for the globe/],
      [{ ...good, map: '/etc/passwd' }, /no safe bundle for the map/],
      [{ ...good, countries: 'sub/countries.js' }, /no safe bundle for the countries/],
      [Object.fromEntries(Object.entries(good).filter(([t]) => t !== 'live-users')), /no safe bundle for the live-users/],
      [{ ...good, map: 'gone.js' }, /ENOENT/],
    ];
    for (const [paths, error] of bad) {
      const dir = await makeTempDir();
      try {
        for (const t of TYPES) await writeFile(path.join(dir.path, `${t}.abc123.js`), `/*${t}*/`);
        await writeFile(path.join(dir.path, 'manifest.json'), JSON.stringify(manifestOf(paths)));
        await expect(loadWidgetsDist(dir.path), JSON.stringify(paths)).rejects.toThrow(error);
      } finally {
        await dir.remove();
      }
    }
  });
});

describe('widgetScriptRoutes without a build', () => {
  it('answers 404 not_found with the error object', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorRenderer(app);
    await app.register(widgetScriptRoutes, { dist: undefined });
    try {
      const answer = await app.inject({ method: 'GET', url: '/widgets/v1/globe.js' });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ code: 'not_found', error: 'The widgets are not built on this server.' });
    } finally {
      await app.close();
    }
  });
});
