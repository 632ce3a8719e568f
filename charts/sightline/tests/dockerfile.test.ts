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
    expect(DOCKERFILE).toMatch(/COPY --from=deps/);
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
    expect(instructions).toContain('ENTRYPOINT ["node", "--max-semi-space-size=64", "--import", "tsx", "apps/launcher/src/main.ts"]');
    expect(instructions).toContain('CMD ["--target=all"]');
    expect(instructions).toContain('STOPSIGNAL SIGTERM');
  });

  it('ships no test, bench or build-only tool as a production dependency (the image installs --omit=dev)', () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { dependencies: Record<string, string> };
    const testTools = ['playwright-core', 'vitest', 'autocannon', 'smtp-server', 'typescript', 'nx', '@bufbuild/buf', 'ts-proto', 'dependency-cruiser', 'kubernetes-models'];
    expect(Object.keys(manifest.dependencies).filter((name) => testTools.includes(name) || name.startsWith('@types/'))).toEqual([]);
  });
});
