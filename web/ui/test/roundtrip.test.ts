// Graph <-> YAML round trips on every shipped pipeline file (../../scenarios/pipelines seen
// from web/ui): YAML -> graph -> YAML gives back the same text byte for byte (comments, quoting
// and flow style included); graph -> YAML -> graph gives back the same graph; and edits made
// through the graph land in the YAML without disturbing anything else.

import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseBundle, updateDocument, appendDocument } from '../src/model/bundle';
import type { Bundle } from '../src/model/bundle';
import { toGraph, fromGraph, addEdge, addTask, removeEdge, removeTasks, renameTask, updateTask, edgesOf } from '../src/model/graph';
import type { PipelineGraph } from '../src/model/graph';
import { keyOrder } from '../src/model/spec';
import { isPlainObject } from '../src/model/util';

const dir = fileURLToPath(new URL('../../../scenarios/pipelines/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

function pipelineDocs(bundle: Bundle): number[] {
  return bundle.docs.map((d, i) => (isPlainObject(d.value) && d.value.kind === 'Pipeline' ? i : -1)).filter((i) => i >= 0);
}

// A graph as names: what the canvas shows (task values without dependsOn, which the edges
// carry, and edges by task name).
function describeGraph(g: PipelineGraph) {
  const name = new Map(g.nodes.map((n) => [n.uid, n.task.name]));
  return {
    tasks: g.nodes.map((n) => {
      const { dependsOn: _, ...rest } = n.task;
      return rest;
    }),
    edges: edgesOf(g).map((e) => `${name.get(e.source)} -> ${name.get(e.target)}`),
  };
}

function reparse(bundle: Bundle): Bundle {
  const again = parseBundle(bundle.text);
  expect(again.problems).toEqual([]);
  return again;
}

describe('the shipped pipeline files', () => {
  it('are all found', () => {
    // The 12 files of scenarios/pipelines/ when this test was written; more is fine.
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  describe.each(files)('%s', (file) => {
    const text = readFileSync(dir + file, 'utf8');

    it('parses without problems into Pipeline (and Pool) documents', () => {
      const bundle = parseBundle(text);
      expect(bundle.problems).toEqual([]);
      expect(pipelineDocs(bundle).length).toBeGreaterThan(0);
      for (const d of bundle.docs) expect(['Pipeline', 'Pool']).toContain((d.value as { kind: string }).kind);
    });

    it('YAML -> graph -> YAML is the identity on the text', () => {
      let bundle = parseBundle(text);
      for (const i of pipelineDocs(bundle)) {
        const value = bundle.docs[i].value;
        const back = fromGraph(value, toGraph(value));
        expect(back).toEqual(value);
        // Not even a copy: an unchanged graph gives the very same value.
        expect(back).toBe(value);
        bundle = updateDocument(bundle, i, back, keyOrder);
      }
      expect(bundle.text).toBe(text);
    });

    it('every document re-printed from its parsed form gives the same text', () => {
      // Forces the printer (not the kept source) on each document in turn.
      const bundle = parseBundle(text);
      for (let i = 0; i < bundle.docs.length; i++) {
        const forced = { ...bundle, docs: bundle.docs.map((d, j) => ({ ...d, dirty: j === i })) };
        const printed = forced.docs.map((d) => (d.dirty ? d.doc.toString(d.options) : d.source)).join('');
        expect(printed).toBe(text);
      }
    });

    it('graph -> YAML -> graph is the identity on the graph', () => {
      const bundle = parseBundle(text);
      for (const i of pipelineDocs(bundle)) {
        const value = bundle.docs[i].value;
        const graph = toGraph(value);
        const printed = updateDocument(bundle, i, fromGraph(value, graph), keyOrder);
        const again = reparse(printed);
        expect(describeGraph(toGraph(again.docs[i].value))).toEqual(describeGraph(graph));
      }
    });

    it('keeps graph edits, and only them, through YAML', () => {
      const bundle = parseBundle(text);
      for (const i of pipelineDocs(bundle)) {
        const value = bundle.docs[i].value as Record<string, unknown>;
        let graph = toGraph(value);
        const first = graph.nodes[0];
        // 1. a new pytorchjob task depending on the first task, 2. a field of the first task
        // edited (GPU share), 3. the new task renamed afterwards.
        graph = addTask(graph, { name: 'finetune', template: 'pytorchjob', image: 'registry.local/ft:1', replicas: { master: 1, worker: 2 } }, 'new');
        graph = addEdge(graph, first.uid, 'new');
        graph = updateTask(graph, first.uid, {
          ...first.task,
          resources: { ...((first.task.resources as object) ?? {}), gpu: '0.25', gpuType: 'T4' },
        });
        graph = renameTask(graph, 'new', 'finetune-bert');

        const edited = fromGraph(value, graph);
        const printed = updateDocument(bundle, i, edited, keyOrder);
        const again = reparse(printed);
        // Every document reads back as what was written.
        expect(again.docs[i].value).toEqual(edited);
        for (let j = 0; j < bundle.docs.length; j++) {
          if (j !== i) {
            expect(again.docs[j].value).toEqual(bundle.docs[j].value);
            expect(printed.docs[j].source).toBe(bundle.docs[j].source);
          }
        }
        const tasks = (again.docs[i].value as { spec: { tasks: Record<string, unknown>[] } }).spec.tasks;
        const added = tasks[tasks.length - 1];
        expect(added).toEqual({
          name: 'finetune-bert',
          template: 'pytorchjob',
          image: 'registry.local/ft:1',
          replicas: { master: 1, worker: 2 },
          dependsOn: [first.task.name],
        });
        expect((tasks[0].resources as Record<string, unknown>).gpu).toBe('0.25');
        // Fields the panel does not edit are still there (simulate, schedule, comments).
        expect(tasks[0].simulate).toEqual(first.task.simulate);
        expect((again.docs[i].value as { spec: { schedule: unknown } }).spec.schedule).toEqual(
          (value.spec as { schedule: unknown }).schedule,
        );
        if (i === 0) expect(printed.text.startsWith(text.slice(0, text.indexOf('\n')))).toBe(true);
        // graph -> YAML -> graph after the edits, too.
        expect(describeGraph(toGraph(again.docs[i].value))).toEqual(describeGraph(graph));
      }
    });

    it('an edit undone gives back the original text', () => {
      const bundle = parseBundle(text);
      for (const i of pipelineDocs(bundle)) {
        const value = bundle.docs[i].value;
        const graph = toGraph(value);
        const n = graph.nodes[graph.nodes.length - 1];
        const changed = updateDocument(bundle, i, fromGraph(value, updateTask(graph, n.uid, { ...n.task, priority: 7 })), keyOrder);
        expect(changed.text).not.toBe(text);
        const restored = updateDocument(changed, i, value, keyOrder);
        expect(restored.text).toBe(text);
      }
    });
  });
});

describe('edits of the dependency list', () => {
  const text = readFileSync(dir + 'trigger-rules.yaml', 'utf8');

  it('removing an edge removes exactly that dependsOn entry', () => {
    const bundle = parseBundle(text);
    const value = bundle.docs[0].value;
    const graph = toGraph(value);
    // notify depends on [transform, cleanup]; drop its first entry.
    const notify = graph.nodes.find((n) => n.task.name === 'notify')!;
    const out = fromGraph(value, removeEdge(graph, { target: notify.uid, index: 0 })) as { spec: { tasks: { name: string; dependsOn?: string[] }[] } };
    expect(out.spec.tasks.find((t) => t.name === 'notify')!.dependsOn).toEqual(['cleanup']);
    const again = reparse(updateDocument(bundle, 0, out, keyOrder));
    expect(again.text).toContain('dependsOn: [cleanup]');
    // The header comment (the DAG drawing) survives.
    expect(again.text).toContain('extract ─┬─> validate (skip: true)');
  });

  it('deleting a task removes it from the dependsOn of the others, and the key when empty', () => {
    const bundle = parseBundle(text);
    const value = bundle.docs[0].value;
    const graph = toGraph(value);
    const extract = graph.nodes.find((n) => n.task.name === 'extract')!;
    const out = fromGraph(value, removeTasks(graph, new Set([extract.uid]))) as { spec: { tasks: { name: string; dependsOn?: string[] }[] } };
    expect(out.spec.tasks.map((t) => t.name)).not.toContain('extract');
    expect(out.spec.tasks.find((t) => t.name === 'validate')!.dependsOn).toBeUndefined();
    expect(out.spec.tasks.find((t) => t.name === 'transform')!.dependsOn).toEqual(['validate']);
    const again = reparse(updateDocument(bundle, 0, out, keyOrder));
    expect(again.docs[0].value).toEqual(out);
  });

  it('keeps a dependsOn entry that names no task (an invalid file is not silently fixed)', () => {
    const bad = text.replace('dependsOn: [transform, cleanup]', 'dependsOn: [transform, nonexistent, cleanup]');
    const bundle = parseBundle(bad);
    const value = bundle.docs[0].value;
    const graph = toGraph(value);
    const notify = graph.nodes.find((n) => n.task.name === 'notify')!;
    expect(notify.deps).toContainEqual({ dangling: 'nonexistent' });
    expect(fromGraph(value, graph)).toBe(value);
    // Renaming the first upstream keeps the dangling entry in place.
    const transform = graph.nodes.find((n) => n.task.name === 'transform')!;
    const out = fromGraph(value, renameTask(graph, transform.uid, 'transform2')) as { spec: { tasks: { name: string; dependsOn?: string[] }[] } };
    expect(out.spec.tasks.find((t) => t.name === 'notify')!.dependsOn).toEqual(['transform2', 'nonexistent', 'cleanup']);
  });
});

describe('new documents', () => {
  it('a pipeline appended to a file prints in the project style and reads back', () => {
    const bundle = parseBundle(readFileSync(dir + 'pools.yaml', 'utf8'));
    const value = {
      apiVersion: 'gantry.dev/v1',
      kind: 'Pipeline',
      metadata: { name: 'nightly', namespace: 'team-a' },
      spec: {
        schedule: { cron: '0 3 * * *', start: '2026-10-01T00:00:00Z' },
        tasks: [{ name: 'train', image: 'registry.local/t:1', resources: { cpu: '4', memory: '16Gi', gpu: '1' } }],
      },
    };
    const out = appendDocument(bundle, value);
    expect(out.text.startsWith(bundle.text)).toBe(true);
    const added = out.text.slice(bundle.text.length);
    expect(added).toBe(
      [
        '---',
        'apiVersion: gantry.dev/v1',
        'kind: Pipeline',
        'metadata: {name: nightly, namespace: team-a}',
        'spec:',
        '  schedule: {cron: "0 3 * * *", start: 2026-10-01T00:00:00Z}',
        '  tasks:',
        '  - name: train',
        '    image: registry.local/t:1',
        '    resources: {cpu: "4", memory: 16Gi, gpu: "1"}',
        '',
      ].join('\n'),
    );
    expect(reparse(out).docs[3].value).toEqual(value);
  });
});
