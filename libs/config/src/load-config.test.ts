import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';
import { renderConfigTable, spliceConfigTable } from './config-table.js';

describe('loadConfig', () => {
  it('gives a zero-configuration single process: port 8080, ./.data, everything embedded', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.PORT).toBe(8080);
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.dataDir).toBe('/srv/app/.data');
    expect(config.WRITES_ENABLED).toBe(true);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.NATS_URL).toBeUndefined();
    expect(config.OTEL_TRACES_EXPORTER).toBeUndefined();
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
  });

  it('derives the public URL from PORT and strips a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '9090' }).publicUrl).toBe('http://localhost:9090');
    expect(loadConfig({ PUBLIC_URL: 'https://stats.example.net/' }).publicUrl).toBe('https://stats.example.net');
  });

  it('links the terms of service: TERMS_URL, else the bundled page under the public URL', () => {
    expect(loadConfig({ PORT: '9090' }).termsUrl).toBe('http://localhost:9090/terms');
    expect(loadConfig({ PUBLIC_URL: 'https://stats.example.net/' }).termsUrl).toBe('https://stats.example.net/terms');
    expect(loadConfig({ TERMS_URL: 'https://legal.example.net/sightline-terms' }).termsUrl).toBe('https://legal.example.net/sightline-terms');
    expect(() => loadConfig({ TERMS_URL: 'not a url' })).toThrow(ConfigError);
  });

  it('parses booleans and lists', () => {
    expect(loadConfig({ WRITES_ENABLED: 'false' }).WRITES_ENABLED).toBe(false);
    expect(loadConfig({ WRITES_ENABLED: '0' }).WRITES_ENABLED).toBe(false);
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('takes INGEST_WORKERS from 0 (the pipeline on the main thread, the default) to 64, whole numbers only', () => {
    expect(loadConfig({}).INGEST_WORKERS).toBe(0);
    expect(loadConfig({ INGEST_WORKERS: '2' }).INGEST_WORKERS).toBe(2);
    expect(loadConfig({ INGEST_WORKERS: '64' }).INGEST_WORKERS).toBe(64);
    for (const bad of ['-1', '65', '1.5', 'two']) expect(() => loadConfig({ INGEST_WORKERS: bad }), bad).toThrow(/INGEST_WORKERS/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).PORT).toBe(8080);
  });

  it('takes a service address as host:port or as a dns:/// name (every replica behind it), nothing else', () => {
    expect(loadConfig({ QUERY_GRPC_ADDR: 'query:50051' }).QUERY_GRPC_ADDR).toBe('query:50051');
    expect(loadConfig({ QUERY_GRPC_ADDR: 'dns:///sightline-query:50051' }).QUERY_GRPC_ADDR).toBe('dns:///sightline-query:50051');
    expect(loadConfig({ QUERY_GRPC_ADDR: 'dns://10.0.0.10:53/sightline-query:50051' }).QUERY_GRPC_ADDR).toBe('dns://10.0.0.10:53/sightline-query:50051');
    for (const bad of ['dns:///sightline-query', 'http://query:50051', 'dns:/query:50051', 'unix:///tmp/q.sock'])
      expect(() => loadConfig({ QUERY_GRPC_ADDR: bad }), bad).toThrow(ConfigError);
    expect(loadConfig({}).GRPC_MAX_CONNECTION_AGE_MS).toBe(30_000);
  });

  it('names every invalid variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', WRITES_ENABLED: 'maybe', DATABASE_URL: 'not a url', IDENTITY_GRPC_ADDR: 'identity' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'WRITES_ENABLED', 'DATABASE_URL', 'IDENTITY_GRPC_ADDR']) expect(problems).toContain(name);
    }
  });
});

describe('README configuration table', () => {
  it('is the one rendered from the schema (run `npm run docs:config` after changing it)', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
    expect(spliceConfigTable(readme)).toBe(readme);
    expect(readme).toContain(renderConfigTable());
  });
});
