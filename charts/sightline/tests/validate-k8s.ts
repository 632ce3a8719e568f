import type { K8sObject } from './render-chart.js';

/**
 * Validates a rendered object against the Kubernetes OpenAPI schema of its kind
 * (kubernetes-models). CRDs we do not ship schemas for (ServiceMonitor) are checked
 * by the chart tests' own assertions instead.
 */
const MODELS: Record<string, () => Promise<{ new (o: unknown): { validate(): void } }>> = {
  'apps/v1/Deployment': async () => (await import('kubernetes-models/apps/v1/Deployment')).Deployment as never,
  'apps/v1/StatefulSet': async () => (await import('kubernetes-models/apps/v1/StatefulSet')).StatefulSet as never,
  'v1/Service': async () => (await import('kubernetes-models/v1/Service')).Service as never,
  'v1/ConfigMap': async () => (await import('kubernetes-models/v1/ConfigMap')).ConfigMap as never,
  'v1/Secret': async () => (await import('kubernetes-models/v1/Secret')).Secret as never,
  'batch/v1/Job': async () => (await import('kubernetes-models/batch/v1/Job')).Job as never,
  'autoscaling/v2/HorizontalPodAutoscaler': async () => (await import('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler')).HorizontalPodAutoscaler as never,
  'policy/v1/PodDisruptionBudget': async () => (await import('kubernetes-models/policy/v1/PodDisruptionBudget')).PodDisruptionBudget as never,
  'networking.k8s.io/v1/Ingress': async () => (await import('kubernetes-models/networking.k8s.io/v1/Ingress')).Ingress as never,
  'networking.k8s.io/v1/NetworkPolicy': async () => (await import('kubernetes-models/networking.k8s.io/v1/NetworkPolicy')).NetworkPolicy as never,
};

export const UNCHECKED_KINDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor']);

export async function validateObject(object: K8sObject): Promise<void> {
  const key = `${object.apiVersion}/${object.kind}`;
  if (UNCHECKED_KINDS.has(key)) return;
  const load = MODELS[key];
  if (!load) throw new Error(`no schema for ${key}: add it to validate-k8s.ts`);
  const Model = await load();
  new Model(object).validate();
}
