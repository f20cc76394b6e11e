// Auto-layout: every upstream task is drawn left of the tasks that depend on it, nodes do not
// overlap, and the 500-task pipeline of the figure is laid out (its time is logged, not
// asserted: timing belongs in benchmarks, `npm run bench`).

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseBundle } from '../src/model/bundle';
import { toGraph, edgesOf } from '../src/model/graph';
import { layoutGraph, kNodeWidth, kNodeHeight } from '../src/model/layout';
import type { Positions } from '../src/model/layout';
import { bigPipeline } from './bigPipeline';

function checkLayout(positions: Positions, graph: ReturnType<typeof toGraph>) {
  for (const e of edgesOf(graph)) expect(positions[e.source].x + kNodeWidth).toBeLessThanOrEqual(positions[e.target].x);
  const boxes = Object.values(positions);
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      const overlap = a.x < b.x + kNodeWidth && b.x < a.x + kNodeWidth && a.y < b.y + kNodeHeight && b.y < a.y + kNodeHeight;
      expect(overlap).toBe(false);
    }
}

describe('layoutGraph', () => {
  it('lays out trigger-rules.yaml left to right without overlaps', () => {
    const text = readFileSync(new URL('../../../scenarios/pipelines/trigger-rules.yaml', import.meta.url), 'utf8');
    const graph = toGraph(parseBundle(text).docs[0].value);
    const positions = layoutGraph(graph);
    expect(Object.keys(positions).sort()).toEqual(graph.nodes.map((n) => n.uid).sort());
    checkLayout(positions, graph);
    // extract is the only root: it is in the first column, alone.
    const x = (name: string) => positions[graph.nodes.find((n) => n.task.name === name)!.uid].x;
    expect(Math.min(...Object.values(positions).map((p) => p.x))).toBe(x('extract'));
  });

  it('lays out a 500-task pipeline (time logged)', () => {
    const graph = toGraph(bigPipeline(500));
    expect(edgesOf(graph).length).toBeGreaterThan(500);
    layoutGraph(toGraph(bigPipeline(50))); // warm up the JIT
    const t0 = performance.now();
    const positions = layoutGraph(graph);
    const ms = performance.now() - t0;
    console.log(`layout of 500 tasks, ${edgesOf(graph).length} edges: ${ms.toFixed(1)} ms`);
    expect(Object.keys(positions)).toHaveLength(500);
    checkLayout(positions, graph);
  });
});
