// Client-side checks: silent on every shipped pipeline (they must never contradict the loader
// on a valid file), and the common mistakes reported on the field the server would name.

import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseBundle } from '../src/model/bundle';
import { checkPipeline } from '../src/model/checks';

const dir = fileURLToPath(new URL('../../../scenarios/pipelines/', import.meta.url));

describe('checkPipeline', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.yaml')))('finds nothing wrong in %s', (f) => {
    const bundle = parseBundle(readFileSync(dir + f, 'utf8'));
    for (const d of bundle.docs) if ((d.value as { kind: string }).kind === 'Pipeline') expect(checkPipeline(d.value)).toEqual([]);
  });

  it('reports the common mistakes with their paths', () => {
    const bad = {
      apiVersion: 'gantry.dev/v1',
      kind: 'Pipeline',
      metadata: { name: 'Bad_Name' },
      spec: {
        schedule: { cron: '0 24 * * *', timezone: 'Mars/Olympus' },
        tasks: [
          { name: 'a', template: 'pytorchjob', resources: { gpu: '1.5', gpuType: 'A100-80G' } },
          { name: 'b', dependsOn: ['a', 'zzz', 'b'], poolSlots: 2, retry: { factor: 0.5, delay: '10' } },
          { name: 'b', replicas: { worker: 2 } },
        ],
      },
    };
    const paths = checkPipeline(bad).map((e) => e.path);
    expect(paths).toEqual([
      'metadata.name',
      'spec.schedule.cron',
      'spec.schedule.timezone',
      'spec.schedule.start',
      'spec.tasks[0].replicas', // pytorchjob without replicas
      'spec.tasks[0].resources.gpu', // 1.5 is neither a share nor whole GPUs
      'spec.tasks[1].poolSlots', // without a pool
      'spec.tasks[1].retry.delay', // no unit
      'spec.tasks[1].retry.factor', // below 1
      'spec.tasks[1].dependsOn[1]', // unknown task
      'spec.tasks[1].dependsOn[2]', // itself
      'spec.tasks[2].name', // duplicate
      'spec.tasks[2].replicas', // a container task is one pod
    ]);
  });

  it('reports a cycle on the dependsOn entries that close it', () => {
    const v = { metadata: { name: 'cyc' }, spec: { tasks: [{ name: 'a', dependsOn: ['c'] }, { name: 'b', dependsOn: ['a'] }, { name: 'c', dependsOn: ['b'] }, { name: 'd', dependsOn: ['a'] }] } };
    expect(checkPipeline(v).map((e) => e.path)).toEqual(['spec.tasks[0].dependsOn[0]', 'spec.tasks[1].dependsOn[0]', 'spec.tasks[2].dependsOn[0]']);
  });

  it('asks for a first task', () => {
    expect(checkPipeline({ metadata: { name: 'empty' }, spec: { tasks: [] } })).toEqual([{ path: 'spec.tasks', message: 'a pipeline needs at least one task: drag a template onto the canvas' }]);
  });
});
