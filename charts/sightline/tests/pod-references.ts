import type { K8sObject } from './render-chart.js';

/** An object a pod needs to exist when it starts, and where the pod names it. */
export interface PodReference {
  kind: 'ConfigMap' | 'Secret' | 'ServiceAccount' | 'PersistentVolumeClaim';
  name: string;
  /** e.g. `containers[migrate].env[DATABASE_URL]` */
  via: string;
}

interface EnvVar { name: string; valueFrom?: { configMapKeyRef?: { name: string }; secretKeyRef?: { name: string } } }
interface EnvFrom { configMapRef?: { name: string }; secretRef?: { name: string } }
interface Container { name: string; env?: EnvVar[]; envFrom?: EnvFrom[] }
interface Projection { configMap?: { name: string }; secret?: { name: string } }
interface Volume {
  name: string;
  configMap?: { name: string };
  secret?: { secretName: string };
  persistentVolumeClaim?: { claimName: string };
  projected?: { sources?: Projection[] };
}
export interface PodSpec {
  serviceAccountName?: string;
  imagePullSecrets?: { name: string }[];
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
}

/** The pod spec an object runs (Pod, or the template of a workload or Job); undefined for other kinds. */
export function podSpecOf(object: K8sObject): PodSpec | undefined {
  if (object.kind === 'Pod') return object.spec as PodSpec;
  const spec = object.spec as { template?: { spec?: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } } | undefined;
  return spec?.template?.spec ?? spec?.jobTemplate?.spec.template.spec;
}

/**
 * Every object the pod reads at start: ServiceAccount, image pull Secrets, env and
 * envFrom sources, volumes. Optional references are listed too: a pod that starts
 * without its settings is as broken as one that does not start.
 */
export function podReferences(pod: PodSpec): PodReference[] {
  const found: PodReference[] = [{ kind: 'ServiceAccount', name: pod.serviceAccountName ?? 'default', via: 'serviceAccountName' }];
  for (const secret of pod.imagePullSecrets ?? []) found.push({ kind: 'Secret', name: secret.name, via: 'imagePullSecrets' });
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    const at = `containers[${container.name}]`;
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) found.push({ kind: 'ConfigMap', name: source.configMapRef.name, via: `${at}.envFrom` });
      if (source.secretRef) found.push({ kind: 'Secret', name: source.secretRef.name, via: `${at}.envFrom` });
    }
    for (const variable of container.env ?? []) {
      const from = variable.valueFrom;
      if (from?.configMapKeyRef) found.push({ kind: 'ConfigMap', name: from.configMapKeyRef.name, via: `${at}.env[${variable.name}]` });
      if (from?.secretKeyRef) found.push({ kind: 'Secret', name: from.secretKeyRef.name, via: `${at}.env[${variable.name}]` });
    }
  }
  for (const volume of pod.volumes ?? []) {
    const at = `volumes[${volume.name}]`;
    if (volume.configMap) found.push({ kind: 'ConfigMap', name: volume.configMap.name, via: at });
    if (volume.secret) found.push({ kind: 'Secret', name: volume.secret.secretName, via: at });
    if (volume.persistentVolumeClaim) found.push({ kind: 'PersistentVolumeClaim', name: volume.persistentVolumeClaim.claimName, via: at });
    for (const source of volume.projected?.sources ?? []) {
      if (source.configMap) found.push({ kind: 'ConfigMap', name: source.configMap.name, via: at });
      if (source.secret) found.push({ kind: 'Secret', name: source.secret.name, via: at });
    }
  }
  return found;
}
