import { describe, expect, it } from 'vitest';
import type { Cluster, GpuHolder } from '../src/api/types';
import { holderLabel, runningGangs } from '../src/model/holders';
import { setLocale } from '../src/i18n/locale';

const train: GpuHolder = { workload: 7, pod: 0, milli: 1000, name: 'nightly/train@2026-01-01T02:00:00Z#2', pipeline: 'nightly', task: 'train', logicalTime: '2026-01-01T02:00:00Z', attempt: 2 };
const job = (workload: number, milli: number): GpuHolder => ({ workload, pod: 0, milli, name: `job-${workload}`, pipeline: null, task: null, logicalTime: null, attempt: null });

function cluster(nodes: { name: string; gpus: GpuHolder[][] }[]): Cluster {
  return {
    gpuTypes: [],
    totals: { gpus: 0, allocatedMilli: 0 },
    racks: [
      {
        name: 'r0',
        nodes: nodes.map((n) => ({
          name: n.name, rack: 'r0', gpuType: 'A100-80G', cordoned: false, ready: true,
          cpu: { capacityMilli: 1, allocatedMilli: 0 }, memory: { capacityBytes: 1, allocatedBytes: 0 },
          gpus: n.gpus.map((holders, index) => ({ index, allocatedMilli: holders.reduce((s, h) => s + h.milli, 0), holders })),
        })),
      },
    ],
  };
}

describe('holders', () => {
  it('names a pipeline task by pipeline, task, run and attempt, other jobs by name', () => {
    expect(holderLabel(train)).toBe('nightly / train · run 01 Jan, 02:00 · attempt 2');
    expect(holderLabel(job(3, 1000))).toBe('job-3');
  });

  it('says run and attempt in the chosen language, names as they are', () => {
    setLocale('zh-CN');
    try {
      expect(holderLabel(train)).toMatch(/^nightly \/ train · 运行 .* · 第 2 次尝试$/);
      expect(holderLabel(job(3, 1000))).toBe('job-3');
    } finally {
      setLocale('en');
    }
  });

  it('groups GPUs by workload, most GPUs first, shares counted by their part', () => {
    // node a: GPU 0 train, GPU 1 train + job-3 (0.5); node b: GPU 0 train, GPU 1 job-4 (whole).
    // train: 3 GPUs on 2 nodes; job-4: 1 GPU; job-3: 0.5 GPU.
    const gangs = runningGangs(cluster([
      { name: 'a', gpus: [[train], [{ ...train, pod: 1 }, job(3, 500)]] },
      { name: 'b', gpus: [[{ ...train, pod: 2 }], [job(4, 1000)]] },
    ]));
    expect(gangs.map((g) => [g.label, g.gpuMilli, g.nodes])).toEqual([
      ['nightly / train · run 01 Jan, 02:00 · attempt 2', 3000, 2],
      ['job-4', 1000, 1],
      ['job-3', 500, 1],
    ]);
  });

  it('a cluster without holders (an older server) has no running gangs', () => {
    expect(runningGangs(cluster([{ name: 'a', gpus: [[], []] }]))).toEqual([]);
  });
});
