import { describe, expect, it } from 'vitest';
import { CHART_DIR, renderChart, type K8sObject } from './render-chart.js';
import { hooksOf, unmetPodReferences } from './helm-install-order.js';
import { podSpecOf } from './pod-references.js';

const PRODUCTION = ['-f', `${CHART_DIR}/ci/production-values.yaml`];
const WITH_STORES = ['--set', 'postgres.url=postgres://sl:pg-secret@pg:5432/sightline', '--set', 'clickhouse.url=http://sl:ch-secret@clickhouse:8123', '--set', 'secretKey=key-secret-0123456789abcdef0123456789abcdef'];
// what exists in the namespace before `helm install`: its default ServiceAccount, and the Secret an operator creates (README, Install step 2)
const NAMESPACE = ['ServiceAccount/default'];
const OPERATOR_SECRET = [...NAMESPACE, 'Secret/sightline-stores'];

const job = (objects: K8sObject[]) => objects.find((o) => o.kind === 'Job')!;
const containerOf = (o: K8sObject) => podSpecOf(o)!.containers[0] as { env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string } } }[]; envFrom?: unknown };

// Helm creates pre-install hooks (by weight) before any ordinary resource, and waits
// for each; a hook pod that reads the chart's ConfigMap or Secret never starts.
describe('Helm install and upgrade order', () => {
  it.each([
    ['default values', [], NAMESPACE],
    ['default values with stores', WITH_STORES, NAMESPACE],
    ['production values (existingSecret)', PRODUCTION, OPERATOR_SECRET],
    ['production values with an image pull secret', [...PRODUCTION, '--set', 'imagePullSecrets[0].name=sightline-stores'], OPERATOR_SECRET],
  ])('creates everything a pod reads before the pod, on install and upgrade: %s', (_name, flags, external) => {
    const objects = renderChart(flags);
    expect(hooksOf(objects, 'pre-install').length).toBeGreaterThan(0);
    expect(unmetPodReferences(objects, 'install', external)).toEqual([]);
    expect(unmetPodReferences(objects, 'upgrade', external)).toEqual([]);
  });

  it('runs the migrations with the settings of this release: the ConfigMap’s data in the Job’s env, the stores from a hook Secret of lower weight', () => {
    const objects = renderChart(WITH_STORES);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'rel-sightline-config')!.data as Record<string, string>;
    const env = containerOf(job(objects)).env;
    expect(containerOf(job(objects)).envFrom).toBeUndefined();
    expect(Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]))).toEqual(config);
    const hooks = hooksOf(objects, 'pre-install');
    expect(hooks.map((h) => `${h.kind}/${h.metadata.name}`)).toEqual(['Secret/rel-sightline-migrate', 'Job/rel-sightline-migrate']);
    const [hookSecret] = hooks;
    expect(hookSecret!.stringData).toEqual(objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'rel-sightline-secrets')!.stringData);
    expect(hookSecret!.metadata.annotations!['helm.sh/hook-delete-policy']).toBe('before-hook-creation,hook-succeeded');
    expect(env.find((e) => e.name === 'DATABASE_URL')!.valueFrom!.secretKeyRef.name).toBe('rel-sightline-migrate');
  });

  it('reads the operator’s existingSecret directly and copies no Secret; no hook objects without migrations', () => {
    const objects = renderChart(PRODUCTION);
    expect(hooksOf(objects, 'pre-install').map((h) => h.kind)).toEqual(['Job']);
    expect(containerOf(job(objects)).env.find((e) => e.name === 'DATABASE_URL')!.valueFrom!.secretKeyRef.name).toBe('sightline-stores');
    expect(hooksOf(renderChart([...WITH_STORES, '--set', 'migrations.enabled=false']), 'pre-install')).toEqual([]);
  });

  // the walk itself, on hand-made objects: each rule it applies can fail
  describe('the order walk', () => {
    const object = (kind: string, name: string, hook?: { events: string; weight?: number; deletePolicy?: string }, spec?: unknown): K8sObject => ({
      apiVersion: 'v1', kind, metadata: { name, ...(hook ? { annotations: { 'helm.sh/hook': hook.events, 'helm.sh/hook-weight': String(hook.weight ?? 0), ...(hook.deletePolicy ? { 'helm.sh/hook-delete-policy': hook.deletePolicy } : {}) } } : {}) }, ...(spec ? { spec } : {}),
    });
    const readingPod = (kind: string, name: string, hook?: { events: string; weight?: number }) =>
      object('Pod', 'p', hook, { containers: [{ name: 'c', envFrom: [{ [kind === 'Secret' ? 'secretRef' : 'configMapRef']: { name } }] }] });
    const PRE = { events: 'pre-install,pre-upgrade' };

    it('flags a hook that reads an ordinary object, on install and upgrade', () => {
      const objects = [object('ConfigMap', 'cfg'), readingPod('ConfigMap', 'cfg', PRE)];
      expect(unmetPodReferences(objects, 'install', NAMESPACE)).toEqual(['pre-install hook: Pod/p reads ConfigMap/cfg (containers[c].envFrom), which does not exist yet']);
      expect(unmetPodReferences(objects, 'upgrade', NAMESPACE)).toHaveLength(1);
    });

    it('accepts a hook object of lower weight, or of equal weight and an earlier kind; flags a later one', () => {
      expect(unmetPodReferences([object('Secret', 's', { ...PRE, weight: -1 }), readingPod('Secret', 's', PRE)], 'install', NAMESPACE)).toEqual([]);
      expect(unmetPodReferences([object('Secret', 's', PRE), readingPod('Secret', 's', PRE)], 'install', NAMESPACE)).toEqual([]);
      expect(unmetPodReferences([object('Secret', 's', { ...PRE, weight: 5 }), readingPod('Secret', 's', PRE)], 'install', NAMESPACE)).toHaveLength(1);
    });

    it('flags an ordinary pod reading a hook object deleted once the hooks succeeded, and any unknown object or ServiceAccount', () => {
      expect(unmetPodReferences([object('Secret', 's', { ...PRE, deletePolicy: 'hook-succeeded' }), readingPod('Secret', 's')], 'install', NAMESPACE)).toHaveLength(1);
      expect(unmetPodReferences([object('Secret', 's', PRE), readingPod('Secret', 's')], 'install', NAMESPACE)).toEqual([]);
      expect(unmetPodReferences([readingPod('Secret', 'elsewhere')], 'install', NAMESPACE)).toHaveLength(1);
      expect(unmetPodReferences([object('Pod', 'p', undefined, { serviceAccountName: 'sa', containers: [] })], 'install', NAMESPACE)).toEqual([
        'release: Pod/p reads ServiceAccount/sa (serviceAccountName), which does not exist yet',
      ]);
    });
  });
});
