// Cycle refusal while drawing: checkConnection on the DAG of scenarios/pipelines/trigger-rules.yaml
// (its header draws it: extract -> validate -> transform -> {publish, cleanup, notify},
// cleanup -> notify, extract/validate -> report, extract -> alert, extract -> heartbeat).

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseBundle } from '../src/model/bundle';
import { toGraph, addEdge } from '../src/model/graph';
import { checkConnection, connectionMessage, nodesOnCycles } from '../src/model/dag';
import { translate, type T } from '../src/i18n/t';

const text = readFileSync(new URL('../../../scenarios/pipelines/trigger-rules.yaml', import.meta.url), 'utf8');
const graph = toGraph(parseBundle(text).docs[0].value);
const en: T = (k, p) => translate('en', k, p);
const zh: T = (k, p) => translate('zh-CN', k, p);
const uid = (name: string) => graph.nodes.find((n) => n.task.name === name)!.uid;

describe('checkConnection', () => {
  it('accepts an edge that keeps the graph acyclic', () => {
    // heartbeat and report are unrelated: report -> heartbeat closes nothing.
    expect(checkConnection(graph, uid('report'), uid('heartbeat'))).toEqual({ ok: true });
    // A shortcut along an existing path is fine too: extract -> notify.
    expect(checkConnection(graph, uid('extract'), uid('notify'))).toEqual({ ok: true });
  });

  it('refuses an edge that closes a cycle and names it', () => {
    // notify already (transitively) depends on extract. transform depends on extract directly
    // (dependsOn: [extract, validate]), so the shortest path back is extract -> transform -> notify.
    const r = checkConnection(graph, uid('notify'), uid('extract'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('cycle');
    expect(r.cycle).toEqual(['notify', 'extract', 'transform', 'notify']);
    // The canvas's notice, in the language chosen.
    expect(connectionMessage(r, en)).toBe('Refused: this edge would close a cycle notify -> extract -> transform -> notify');
    expect(connectionMessage(r, zh)).toBe('已拒绝：这条边会形成环 notify -> extract -> transform -> notify');
  });

  it('refuses the direct reverse of an edge', () => {
    const r = checkConnection(graph, uid('cleanup'), uid('transform'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.cycle).toEqual(['cleanup', 'transform', 'cleanup']);
  });

  it('refuses a self-dependency and a duplicate edge', () => {
    const self = checkConnection(graph, uid('report'), uid('report'));
    expect(self.ok).toBe(false);
    if (!self.ok) {
      expect(self.reason).toBe('self');
      expect(connectionMessage(self, en)).toBe('A task cannot depend on itself (report -> report)');
      expect(connectionMessage(self, zh)).toBe('任务不能依赖自身（report -> report）');
    }
    const dup = checkConnection(graph, uid('extract'), uid('validate'));
    expect(dup.ok).toBe(false);
    if (!dup.ok) {
      expect(dup.reason).toBe('duplicate');
      expect(connectionMessage(dup, en)).toBe('validate already depends on extract');
      expect(connectionMessage(dup, zh)).toBe('validate 已经依赖 extract');
    }
  });

  it('sees edges added since the file was read', () => {
    const g = addEdge(graph, uid('report'), uid('heartbeat'));
    const r = checkConnection(g, uid('heartbeat'), uid('validate'));
    // heartbeat now depends on report, which depends on validate.
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.cycle).toEqual(['heartbeat', 'validate', 'report', 'heartbeat']);
  });
});

describe('nodesOnCycles', () => {
  it('finds none in a DAG', () => {
    expect(nodesOnCycles(graph).size).toBe(0);
  });

  it('finds the tasks of a cycle typed in the YAML tab', () => {
    // extract now depends on notify: every task on a path extract -> ... -> notify is on a cycle
    // (extract, validate, transform, cleanup, notify); the leaves publish, report, alert and
    // heartbeat are not.
    const cyclic = text.replace('  - name: extract\n    image: registry.local/etl:1\n', '  - name: extract\n    image: registry.local/etl:1\n    dependsOn: [notify]\n');
    const g = toGraph(parseBundle(cyclic).docs[0].value);
    const names = [...nodesOnCycles(g)].map((u) => g.nodes.find((n) => n.uid === u)!.task.name).sort();
    expect(names).toEqual(['cleanup', 'extract', 'notify', 'transform', 'validate']);
  });

  it('handles a 10,000-task chain without recursion', () => {
    const tasks = Array.from({ length: 10000 }, (_, i) => ({ name: `t${i}`, ...(i ? { dependsOn: [`t${i - 1}`] } : { dependsOn: ['t9999'] }) }));
    const g = toGraph({ spec: { tasks } });
    expect(nodesOnCycles(g).size).toBe(10000);
  });
});
