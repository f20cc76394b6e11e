// The editor's state (src/editor/state.ts): every change goes through the YAML text, undo and
// redo restore texts exactly, and editing the YAML keeps the canvas (uids, positions) of the
// tasks that are still there.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { initialState, reducer } from '../src/editor/state';
import type { EditorState } from '../src/editor/state';
import { addEdge, addTask } from '../src/model/graph';
import { setIn } from '../src/model/util';
import { printValues } from '../src/model/bundle';

const text = readFileSync(new URL('../../../scenarios/pipelines/hourly-etl.yaml', import.meta.url), 'utf8');
const uidOf = (s: EditorState, name: string) => s.graph.nodes.find((n) => n.task.name === name)!.uid;

describe('editor state', () => {
  it('starts with the graph of the first pipeline, every node placed', () => {
    const s = initialState(text);
    expect(s.graph.nodes.map((n) => n.task.name)).toEqual(['extract', 'transform', 'load']);
    expect(Object.keys(s.positions).sort()).toEqual(s.graph.nodes.map((n) => n.uid).sort());
    expect(s.bundle.text).toBe(text);
    expect(s.selection).toEqual({ kind: 'pipeline' });
  });

  it('puts graph edits in the text, and undo / redo restore texts exactly', () => {
    const s0 = initialState(text);
    const s1 = reducer(s0, { type: 'graph', update: (g) => addEdge(addTask(g, { name: 'publish', image: 'registry.local/etl:1' }, 'p'), uidOf(s0, 'load'), 'p') });
    expect(s1.bundle.text).toContain('  - name: publish\n    image: registry.local/etl:1\n    dependsOn: [load]\n');
    expect(s1.bundle.text.startsWith(text.slice(0, text.indexOf('  - name: load')))).toBe(true);
    expect(s1.positions.p).toBeDefined();
    expect(s1.undo).toEqual([text]);
    const s2 = reducer(s1, { type: 'undo' });
    expect(s2.bundle.text).toBe(text);
    expect(s2.graph.nodes.map((n) => n.task.name)).toEqual(['extract', 'transform', 'load']);
    const s3 = reducer(s2, { type: 'redo' });
    expect(s3.bundle.text).toBe(s1.bundle.text);
    // The tasks that stayed keep their uids and positions through undo and redo.
    expect(uidOf(s3, 'extract')).toBe(uidOf(s0, 'extract'));
    expect(s3.positions[uidOf(s3, 'extract')]).toEqual(s0.positions[uidOf(s0, 'extract')]);
  });

  it('puts pipeline panel edits in the text and nothing else', () => {
    const s0 = initialState(text);
    const s1 = reducer(s0, { type: 'pipeline', update: (v) => setIn(setIn(v, ['spec', 'schedule', 'cron'], '*/15 * * * *'), ['spec', 'parallelism'], 2) });
    expect(s1.bundle.text).toBe(text.replace('cron: "0 * * * *"', 'cron: "*/15 * * * *"').replace('  concurrency: {maxActiveRuns: 1}\n', '  concurrency: {maxActiveRuns: 1}\n  parallelism: 2\n'));
  });

  it('follows the YAML tab: renames keep the canvas, unknown lines are refused', () => {
    const s0 = initialState(text);
    const s1 = reducer(s0, { type: 'yaml', text: text.replaceAll('name: load', 'name: load-warehouse').replace('dependsOn: [transform]\n    resources: {cpu: "1"', 'dependsOn: [transform]\n    resources: {cpu: "1"') });
    expect(s1.yamlProblems).toEqual([]);
    expect(s1.graph.nodes.map((n) => n.task.name)).toEqual(['extract', 'transform', 'load-warehouse']);
    expect(uidOf(s1, 'extract')).toBe(uidOf(s0, 'extract'));
    expect(s1.positions[uidOf(s1, 'transform')]).toEqual(s0.positions[uidOf(s0, 'transform')]);
    // A text that does not parse is kept in the tab and reported; the graph and bundle stay.
    const s2 = reducer(s1, { type: 'yaml', text: text + '  - name: [unclosed\n' });
    expect(s2.yamlProblems.length).toBeGreaterThan(0);
    expect(s2.yamlProblems[0].line).toBeGreaterThan(text.split('\n').length - 2);
    expect(s2.bundle.text).toBe(s1.bundle.text);
    expect(s2.graph).toBe(s1.graph);
  });

  it('shows each pipeline of a multi-document file', () => {
    const pools = readFileSync(new URL('../../../scenarios/pipelines/pools.yaml', import.meta.url), 'utf8');
    const s0 = initialState(pools, undefined, 'train');
    expect(s0.active).toBe(2);
    expect(s0.graph.nodes.map((n) => n.task.name)).toEqual(['train']);
    const s1 = reducer(s0, { type: 'active', index: 1 });
    expect(s1.graph.nodes.map((n) => n.task.name)).toEqual(['report']);
    // An edit of one pipeline leaves the other documents byte for byte.
    const s2 = reducer(s1, { type: 'graph', update: (g) => ({ nodes: g.nodes.map((n) => ({ ...n, task: { ...n.task, priority: 20 } })) }) });
    expect(s2.bundle.docs[0].source).toBe(s0.bundle.docs[0].source);
    expect(s2.bundle.docs[2].source).toBe(s0.bundle.docs[2].source);
    expect(s2.bundle.docs[1].source).toContain('priority: 20');
  });

  it('lays out again in the chosen direction', () => {
    const s0 = initialState(text);
    const lr = reducer(s0, { type: 'direction', direction: 'LR' });
    const tb = reducer(s0, { type: 'direction', direction: 'TB' });
    const pos = (s: EditorState, n: string) => s.positions[uidOf(s, n)];
    // extract -> transform -> load: left to right along x, top to bottom along y.
    expect(pos(lr, 'extract').x).toBeLessThan(pos(lr, 'transform').x);
    expect(pos(lr, 'extract').y).toBe(pos(lr, 'transform').y);
    expect(pos(tb, 'extract').y).toBeLessThan(pos(tb, 'transform').y);
    expect(pos(tb, 'extract').x).toBe(pos(tb, 'transform').x);
    expect(tb.fitRequest).toBe(s0.fitRequest + 1);
  });

  it('prints the tasks of a new pipeline as a block list, not one long flow line', () => {
    // The editor's new pipeline: `tasks: []` printed in flow style; the first dropped template
    // turns it into a block list of maps, as the shipped examples write tasks.
    const fresh = printValues([{ apiVersion: 'gantry.dev/v1', kind: 'Pipeline', metadata: { name: 'new-pipeline' }, spec: { schedule: { cron: '0 3 * * *', start: '2026-11-23T00:00:00Z', catchup: false }, tasks: [] } }]);
    expect(fresh).toContain('  tasks: []\n');
    const s0 = initialState(fresh);
    const s1 = reducer(s0, { type: 'graph', update: (g) => addTask(g, { name: 'task', image: 'registry.local/app:1', resources: { cpu: '1', memory: '2Gi' } }, 'a') });
    const s2 = reducer(s1, { type: 'graph', update: (g) => addEdge(addTask(g, { name: 'train', image: 'registry.local/pytorch:2' }, 'b'), 'a', 'b') });
    expect(s2.bundle.text).toContain('  tasks:\n  - name: task\n    image: registry.local/app:1\n    resources: {cpu: "1", memory: 2Gi}\n  - name: train\n    image: registry.local/pytorch:2\n    dependsOn: [task]\n');
    expect(s2.bundle.text).not.toContain('[{');
  });
});
