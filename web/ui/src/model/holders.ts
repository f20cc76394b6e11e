// Who holds the cluster's GPUs (GET /cluster's `holders`, issue #26 §5): names for a GPU's
// tooltip and the running gangs of the Cluster page, whose GPUs light up on hover.
import type { Cluster, GpuHolder } from '../api/types';
import { fmtShort } from '../format';
import { t } from '../i18n/t';

// "nightly / train · run 01 Jan, 02:00 · attempt 2" for a pipeline task's gang, else its name.
export function holderLabel(h: Pick<GpuHolder, 'name' | 'pipeline' | 'task' | 'logicalTime' | 'attempt'>): string {
  if (!h.pipeline || !h.task) return h.name;
  const run = h.logicalTime ? ` · ${t('cluster.run', { time: fmtShort(h.logicalTime) })}` : '';
  const attempt = h.attempt !== null && h.attempt !== undefined ? t('cluster.attempt', { n: h.attempt }) : '';
  return `${h.pipeline} / ${h.task}${run}${attempt}`;
}

export interface RunningGang {
  workload: number;
  label: string;
  pipeline: string | null;
  gpuMilli: number; // the GPUs it holds, in thousandths (a share counts its part)
  nodes: number;
}

// Every workload holding a GPU, most GPUs first (then by label): what the page lists.
export function runningGangs(cluster: Cluster): RunningGang[] {
  const by = new Map<number, RunningGang & { nodeNames: Set<string> }>();
  for (const rack of cluster.racks)
    for (const node of rack.nodes)
      for (const g of node.gpus)
        for (const h of g.holders ?? []) {
          let r = by.get(h.workload);
          if (!r) {
            r = { workload: h.workload, label: holderLabel(h), pipeline: h.pipeline, gpuMilli: 0, nodes: 0, nodeNames: new Set() };
            by.set(h.workload, r);
          }
          r.gpuMilli += h.milli;
          r.nodeNames.add(node.name);
        }
  return [...by.values()]
    .map(({ nodeNames, ...r }) => ({ ...r, nodes: nodeNames.size }))
    .sort((a, b) => b.gpuMilli - a.gpuMilli || a.label.localeCompare(b.label));
}
