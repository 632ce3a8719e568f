import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The rules an operator relies on, read from the Dockerfile's text. The image itself
// is built with buildah and run by apps/launcher/src/container.image.test.ts.
const DOCKERFILE = readFileSync(fileURLToPath(new URL('../../../Dockerfile', import.meta.url)), 'utf8');
const DOCKERIGNORE = readFileSync(fileURLToPath(new URL('../../../.dockerignore', import.meta.url)), 'utf8');
const instructions = DOCKERFILE.split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

describe('Dockerfile', () => {
  it('is multi-stage: dependencies are installed in a build stage, the runtime copies them', () => {
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(DOCKERFILE).toMatch(/COPY --from=build /);
  });

  it('installs dependencies before it copies any source, so a source edit reuses the install', () => {
    const deps = instructions.findIndex((line) => / AS deps$/.test(line));
    const install = instructions.findIndex((line) => line.includes('npm ci'));
    const depsCopies = instructions.slice(deps, install).filter((line) => line.startsWith('COPY '));
    expect(depsCopies).toEqual(['COPY package.json package-lock.json ./', 'COPY --from=manifests /manifests/ ./']);
    // the manifests stage passes on the workspaces' package.json and nothing else
    expect(DOCKERFILE).toMatch(/find apps libs -mindepth 2 -maxdepth 2 -name package\.json -exec cp --parents \{\} \/manifests\/ \\;/);
    // the sources come in after the install, in the build stage that starts from deps
    for (const copy of ['COPY apps/ ./apps/', 'COPY libs/ ./libs/']) expect(instructions.lastIndexOf(copy)).toBeGreaterThan(install);
  });

  it('compiles the TypeScript to JavaScript at build time: no tsx at run time', () => {
    const build = instructions.indexOf('FROM deps AS build');
    const compile = instructions.findIndex((line) => line.includes('node tools/image/compile.mjs'));
    expect(compile).toBeGreaterThan(build);
    expect(DOCKERFILE).not.toMatch(/--import", "tsx"/);
  });

  it('builds the dashboard before serving: its static files, then the compiled server', () => {
    const build = instructions.indexOf('FROM deps AS build');
    const step = instructions.findIndex((line) => line.includes('npm run build:dashboard'));
    expect(step).toBeGreaterThan(build);
    expect(DOCKERFILE.indexOf('npm run build:dashboard')).toBeLessThan(DOCKERFILE.indexOf('node tools/image/compile.mjs'));
    // a local build never slips in instead of the image's own
    expect(DOCKERIGNORE.split('\n')).toContain('apps/dashboard/dist');
  });

  it('installs production dependencies only, from the lockfile, without install scripts', () => {
    const install = instructions.find((line) => line.includes('npm ci'));
    expect(install).toMatch(/--omit=dev/);
    expect(install).toMatch(/--ignore-scripts/);
  });

  it('can leave out the embedded ClickHouse engine for deployments on a ClickHouse server', () => {
    expect(instructions).toContain('ARG EMBEDDED_CLICKHOUSE=true');
    const install = instructions.findIndex((line) => line.includes('npm ci'));
    expect(DOCKERFILE).toMatch(/if \[ "\$EMBEDDED_CLICKHOUSE" = "false" \]; then rm -rf node_modules\/@chdb; fi/);
    expect(install).toBeGreaterThan(instructions.indexOf('ARG EMBEDDED_CLICKHOUSE=true'));
  });

  it('runs as a fixed non-root user', () => {
    const user = instructions.filter((line) => line.startsWith('USER ')).pop();
    expect(user).toBe('USER 10001:10001');
  });

  it('bakes no secret into the image and ships no test code', () => {
    for (const env of instructions.filter((line) => line.startsWith('ENV ') || line.startsWith('ARG '))) {
      expect(env).not.toMatch(/SECRET|PASSWORD|TOKEN|DATABASE_URL|CLICKHOUSE_URL|SMTP_URL/);
    }
    expect(DOCKERFILE).toMatch(/\*\.test\.ts' -delete/);
    for (const ignored of ['node_modules', '.data', '.git']) expect(DOCKERIGNORE.split('\n')).toContain(ignored);
  });

  it('starts the launcher, whose --target picks the service (default all), and stops on SIGTERM', () => {
    expect(instructions).toContain('ENTRYPOINT ["node", "--max-semi-space-size=64", "apps/launcher/src/main.js"]');
    expect(instructions).toContain('CMD ["--target=all"]');
    expect(instructions).toContain('STOPSIGNAL SIGTERM');
  });

  it('ships no test, bench or build-only tool as a production dependency (the image installs --omit=dev)', () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { dependencies: Record<string, string> };
    const testTools = ['playwright-core', 'vitest', 'autocannon', 'smtp-server', 'typescript', 'nx', '@bufbuild/buf', 'ts-proto', 'dependency-cruiser', 'kubernetes-models'];
    expect(Object.keys(manifest.dependencies).filter((name) => testTools.includes(name) || name.startsWith('@types/'))).toEqual([]);
  });
});
