import type { K8sObject } from './render-chart.js';
import { podReferences, podSpecOf } from './pod-references.js';

/** Helm's kind order for creating objects (helm/pkg/releaseutil/kind_sorter.go, InstallOrder). */
const INSTALL_ORDER = [
  'Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget', 'ServiceAccount',
  'Secret', 'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim', 'CustomResourceDefinition',
  'ClusterRole', 'ClusterRoleList', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'Role', 'RoleList', 'RoleBinding',
  'RoleBindingList', 'Service', 'DaemonSet', 'Pod', 'ReplicationController', 'ReplicaSet', 'Deployment',
  'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'Ingress', 'APIService',
];
const kindRank = (kind: string) => (INSTALL_ORDER.includes(kind) ? INSTALL_ORDER.indexOf(kind) : INSTALL_ORDER.length);

export const keyOf = (o: { kind: string; metadata: { name: string } } | { kind: string; name: string }) =>
  `${o.kind}/${'metadata' in o ? o.metadata.name : o.name}`;

const annotation = (o: K8sObject, name: string) => o.metadata.annotations?.[`helm.sh/${name}`];
const hookEvents = (o: K8sObject) => (annotation(o, 'hook') ?? '').split(',').map((e) => e.trim()).filter(Boolean);
const deletedOnSuccess = (o: K8sObject) => (annotation(o, 'hook-delete-policy') ?? 'before-hook-creation').includes('hook-succeeded');

// Go's string order (bytes), as Helm's sort uses
const byName = (a: K8sObject, b: K8sObject) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

/** The hooks of one event in the order Helm runs them: by weight, then kind, then name (helm/pkg/action/hooks.go). */
export function hooksOf(objects: K8sObject[], event: string): K8sObject[] {
  return objects
    .filter((o) => hookEvents(o).includes(event))
    .sort((a, b) => Number(annotation(a, 'hook-weight') ?? 0) - Number(annotation(b, 'hook-weight') ?? 0)
      || kindRank(a.kind) - kindRank(b.kind) || byName(a, b));
}

/**
 * Walks `helm install` (or `helm upgrade`): the pre- hooks one by one (each waited
 * for: a Job until it completes), then every ordinary object at once, then the post-
 * hooks. A hook's objects deleted on success are gone once all hooks of the event
 * succeeded. Returns each pod that would read an object not created by then. On an
 * upgrade the release's ordinary objects do exist before the hooks, but with the
 * previous release's values, so a pre-upgrade hook must not read them either.
 * `external`: objects the operator creates before the install (`Secret/name`, ...).
 */
export function unmetPodReferences(objects: K8sObject[], action: 'install' | 'upgrade', external: string[]): string[] {
  const problems: string[] = [];
  const present = new Set(external);
  const check = (object: K8sObject, when: string) => {
    const pod = podSpecOf(object);
    if (!pod) return;
    for (const ref of podReferences(pod)) {
      if (!present.has(keyOf(ref))) problems.push(`${when}: ${keyOf(object)} reads ${keyOf(ref)} (${ref.via}), which does not exist yet${action === 'upgrade' ? ' (or holds the previous release’s values)' : ''}`);
    }
  };
  const runHooks = (event: string) => {
    const hooks = hooksOf(objects, event);
    for (const hook of hooks) {
      check(hook, `${event} hook`);
      present.add(keyOf(hook));
    }
    for (const hook of hooks) if (deletedOnSuccess(hook)) present.delete(keyOf(hook));
  };
  runHooks(`pre-${action}`);
  const ordinary = objects.filter((o) => hookEvents(o).length === 0);
  for (const object of ordinary) present.add(keyOf(object));
  for (const object of ordinary) check(object, 'release');
  runHooks(`post-${action}`);
  return problems;
}
