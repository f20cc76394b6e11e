// Server validation errors mapped to the node and field they concern. The errors are shaped
// like the ones `gantry pipeline validate` prints (workflow/pipeline/pipeline_loader.cpp) for
// edits of scenarios/pipelines/pools.yaml, a file of three documents (Pool, Pipeline reports,
// Pipeline train).

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseBundle } from '../src/model/bundle';
import { parsePath, targetOf, locateErrors, groupErrors, messagesFor } from '../src/model/errors';

const text = readFileSync(new URL('../../../scenarios/pipelines/pools.yaml', import.meta.url), 'utf8');
const bundle = parseBundle(text);
const lineOf = (needle: string, from = 0) => text.slice(0, text.indexOf(needle, from)).split('\n').length;

describe('paths', () => {
  it('are split into fields and indexes', () => {
    expect(parsePath('spec.tasks[1].resources.gpu')).toEqual(['spec', 'tasks', 1, 'resources', 'gpu']);
    expect(parsePath('spec.tasks[12].dependsOn[0]')).toEqual(['spec', 'tasks', 12, 'dependsOn', 0]);
    expect(parsePath('')).toEqual([]);
  });

  it('name a task field, an edge, a pipeline field or the document', () => {
    expect(targetOf('spec.tasks[1].resources.gpu')).toEqual({ kind: 'task', task: 1, field: 'resources.gpu' });
    expect(targetOf('spec.tasks[2].retry.factor')).toEqual({ kind: 'task', task: 2, field: 'retry.factor' });
    expect(targetOf('spec.tasks[0].replicas')).toEqual({ kind: 'task', task: 0, field: 'replicas' });
    expect(targetOf('spec.tasks[3].dependsOn[1]')).toEqual({ kind: 'edge', task: 3, dep: 1 });
    expect(targetOf('spec.tasks[3].command[0]')).toEqual({ kind: 'task', task: 3, field: 'command[0]' });
    expect(targetOf('spec.schedule.cron')).toEqual({ kind: 'pipeline', field: 'schedule.cron' });
    expect(targetOf('spec.tasks')).toEqual({ kind: 'pipeline', field: 'tasks' });
    expect(targetOf('metadata.name')).toEqual({ kind: 'pipeline', field: 'metadata.name' });
    expect(targetOf('apiVersion')).toEqual({ kind: 'document' });
    expect(targetOf(undefined)).toEqual({ kind: 'document' });
  });
});

describe('errors of a three-document body', () => {
  // Lines in the whole body, as the server reports them.
  const gpuLine = lineOf('gpu: "0.5"'); // reports' task 0 (document 1)
  const trainSlots = lineOf('poolSlots: 2'); // train's task 0 (document 2)
  const cronLine = lineOf('cron: "0 0 * * *"'); // train's schedule
  const poolSlotsLine = lineOf('slots: 2'); // the Pool (document 0)
  const errors = [
    { file: 'body', line: gpuLine, column: 42, path: 'spec.tasks[0].resources.gpu', message: 'expected a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5, got "1.5"' },
    { file: 'body', line: trainSlots, column: 16, path: 'spec.tasks[0].poolSlots', message: 'poolSlots 3 is more than the 2 slots of pool "shared-gpus": the task could never start' },
    { file: 'body', line: cronLine, column: 20, path: 'spec.schedule.cron', message: 'hour: value 24 out of range 0-23 (at column 3 of "0 24 * * *")' },
    { file: 'body', line: poolSlotsLine, column: 15, path: 'spec.slots', message: 'expected an integer from 1 to 1000000, got 0' },
    { file: 'body', line: trainSlots + 1, column: 5, path: 'spec.tasks[0].dependsOn[0]', message: 'cycle: train -> train' },
    { file: 'body', line: 1, column: 1, message: 'a document-level problem' },
  ];
  const located = locateErrors(errors, bundle);

  it('finds the document of each error by its line', () => {
    expect(located.map((e) => e.doc)).toEqual([1, 2, 2, 0, 2, 0]);
  });

  it('groups them by task, edge and pipeline field', () => {
    const reports = groupErrors(located, 1);
    expect([...reports.byTask.keys()]).toEqual([0]);
    expect(messagesFor(reports.byTask.get(0), 'resources.gpu')).toEqual([errors[0].message]);
    // A panel section shows what is below it.
    expect(messagesFor(reports.byTask.get(0), 'resources')).toEqual([errors[0].message]);
    expect(messagesFor(reports.byTask.get(0), 'resources.cpu')).toEqual([]);

    const train = groupErrors(located, 2);
    expect(messagesFor(train.byTask.get(0), 'poolSlots')).toEqual([errors[1].message]);
    expect(train.byEdge.get('0:0')!.map((e) => e.message)).toEqual(['cycle: train -> train']);
    expect(messagesFor(train.byTask.get(0), 'dependsOn')).toEqual(['cycle: train -> train']);
    expect(messagesFor(train.pipeline, 'schedule')).toEqual([errors[2].message]);
    expect(messagesFor(train.pipeline, 'schedule.cron')).toEqual([errors[2].message]);

    const pool = groupErrors(located, 0);
    expect(pool.pipeline.map((e) => e.message)).toEqual([errors[3].message]);
    expect(pool.general.map((e) => e.message)).toEqual(['a document-level problem']);
  });

  it('puts an error without a line on the only document of a one-document body', () => {
    const one = parseBundle(readFileSync(new URL('../../../scenarios/pipelines/hourly-etl.yaml', import.meta.url), 'utf8'));
    const [e] = locateErrors([{ path: 'spec.tasks[1].retry.delay', message: 'expected a duration' }], one);
    expect(e.doc).toBe(0);
    expect(e.target).toEqual({ kind: 'task', task: 1, field: 'retry.delay' });
  });
});
