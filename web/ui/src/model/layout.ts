// Automatic layout of the task graph with dagre (layered drawing: upstream tasks left of the
// tasks that depend on them). Positions are React Flow's: the top-left corner of each node.
//
// Up to kSmall tasks dagre runs as it is (network-simplex ranking and its crossing
// minimisation). Beyond, two of its phases are replaced through its own hooks, because on a
// 500-task pipeline they cost seconds: ranking (`ranker` accepts a function) by longest path
// from the sources with sources then pulled next to their first downstream task, and the order
// inside ranks (`customOrder`) by barycenter sweeps on plain arrays, keeping the sweep with the
// fewest crossings. dagre still inserts the dummy nodes of long edges and assigns coordinates
// (Brandes-Köpf). The figure: 500 tasks in under 200 ms (test/layout.test.ts logs it;
// `npm run bench`).

import dagre from '@dagrejs/dagre';
import type { PipelineGraph } from './graph';
import { edgesOf } from './graph';

export const kNodeWidth = 212;
export const kNodeHeight = 72;
const kSmall = 150;

export type Direction = 'LR' | 'TB';
export type Positions = Record<string, { x: number; y: number }>;

type DagreGraph = InstanceType<typeof dagre.graphlib.Graph>;

// Longest path from the sources, one rank per edge, then every node whose in-edges are all
// weightless (dagre's nesting root only) moved as late as its out-edges allow, latest first, so
// that roots sit next to what they feed instead of in the first column.
//
// One rank per edge, where dagre asks for two: dagre doubles every edge's minlen to make room
// for edge labels (and halves ranksep to match), which puts a dummy node on every edge. The
// editor draws no edge labels, so adjacent tasks go on adjacent ranks (layoutGraph doubles
// ranksep back); only edges that skip ranks get dummies. On the 500-task figure that divides
// the nodes dagre positions by about two, and the time of its costliest phase with them.
function fastRanker(g: DagreGraph) {
  const nodes = g.nodes();
  const indeg = new Map<string, number>(nodes.map((v) => [v, 0]));
  for (const e of g.edges()) indeg.set(e.w, (indeg.get(e.w) ?? 0) + 1);
  const order = nodes.filter((v) => indeg.get(v) === 0);
  for (let i = 0; i < order.length; i++) {
    for (const e of g.outEdges(order[i]) ?? []) {
      const d = indeg.get(e.w)! - 1;
      indeg.set(e.w, d);
      if (d === 0) order.push(e.w);
    }
  }
  const rank = new Map<string, number>();
  for (const v of order) {
    let r = 0;
    for (const e of g.inEdges(v) ?? []) r = Math.max(r, rank.get(e.v)! + 1);
    rank.set(v, r);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i];
    const outs = g.outEdges(v) ?? [];
    if (!outs.length) continue;
    if ((g.inEdges(v) ?? []).some((e) => (g.edge(e) as { weight: number }).weight > 0)) continue;
    let r = Infinity;
    for (const e of outs) r = Math.min(r, rank.get(e.w)! - 1);
    if (r !== Infinity && r > rank.get(v)!) rank.set(v, r);
  }
  for (const v of nodes) (g.node(v) as { rank?: number }).rank = rank.get(v) ?? 0;
  // dagre gives an edge its points from its dummy nodes; an edge between adjacent ranks has
  // none, and its later phases expect a list. The editor draws its own edges, so a placeholder
  // point is enough (edges with dummies get theirs reset and filled by dagre).
  for (const e of g.edges()) {
    const label = g.edge(e) as { points?: { x: number; y: number }[] };
    if (!label.points) label.points = [{ x: 0, y: 0 }];
  }
}

// Crossings between two adjacent layers: inversions of the south positions of the edges sorted
// by north position (then south), counted with a Fenwick tree.
function crossings(north: string[], pos: Map<string, number>, succs: Map<string, string[]>, southSize: number): number {
  const ends: number[] = [];
  for (const v of north) {
    const s = succs.get(v)!.map((w) => pos.get(w)!).sort((a, b) => a - b);
    ends.push(...s);
  }
  const tree = new Array<number>(southSize + 1).fill(0);
  let count = 0;
  for (let i = 0; i < ends.length; i++) {
    // edges seen so far with a south position greater than ends[i]
    let le = 0;
    for (let j = ends[i] + 1; j > 0; j -= j & -j) le += tree[j];
    count += i - le;
    for (let j = ends[i] + 1; j <= southSize; j += j & -j) tree[j] += 1;
  }
  return count;
}

function fastOrder(g: DagreGraph) {
  const nodes = g.nodes();
  let maxRank = 0;
  for (const v of nodes) maxRank = Math.max(maxRank, (g.node(v) as { rank: number }).rank);
  const layers: string[][] = Array.from({ length: maxRank + 1 }, () => []);
  const preds = new Map<string, string[]>();
  const succs = new Map<string, string[]>();
  for (const v of nodes) {
    preds.set(v, g.predecessors(v) ?? []);
    succs.set(v, g.successors(v) ?? []);
  }
  // Initial order: depth first from the sources, in the order tasks were given.
  const seen = new Set<string>();
  const visit = (start: string) => {
    const stack = [start];
    while (stack.length) {
      const v = stack.pop()!;
      if (seen.has(v)) continue;
      seen.add(v);
      layers[(g.node(v) as { rank: number }).rank].push(v);
      const next = succs.get(v)!;
      for (let i = next.length - 1; i >= 0; i--) if (!seen.has(next[i])) stack.push(next[i]);
    }
  };
  for (const v of nodes) if (preds.get(v)!.length === 0) visit(v);
  for (const v of nodes) visit(v);

  const pos = new Map<string, number>();
  const index = () => layers.forEach((l) => l.forEach((v, i) => pos.set(v, i)));
  index();
  const total = () => {
    let c = 0;
    for (let r = 0; r < layers.length - 1; r++) c += crossings(layers[r], pos, succs, layers[r + 1].length);
    return c;
  };
  let best = layers.map((l) => l.slice());
  let bestCount = total();
  for (let sweep = 0; sweep < 12 && bestCount > 0; sweep++) {
    const down = sweep % 2 === 0;
    const seq = down ? layers.slice(1) : layers.slice(0, -1).reverse();
    for (const layer of seq) {
      const bc = new Map<string, number>();
      for (const v of layer) {
        const ns = (down ? preds : succs).get(v)!;
        bc.set(v, ns.length ? ns.reduce((s, u) => s + pos.get(u)!, 0) / ns.length : pos.get(v)!);
      }
      layer.sort((a, b) => bc.get(a)! - bc.get(b)! || pos.get(a)! - pos.get(b)!);
      layer.forEach((v, i) => pos.set(v, i));
    }
    const c = total();
    if (c < bestCount) {
      bestCount = c;
      best = layers.map((l) => l.slice());
    }
  }
  best.forEach((l) => l.forEach((v, i) => ((g.node(v) as { order: number }).order = i)));
}

// The duration of the last layout, for the browser test's timing log.
export let lastLayoutMs = 0;

export function layoutGraph(graph: PipelineGraph, direction: Direction = 'LR'): Positions {
  const t0 = typeof performance === 'undefined' ? 0 : performance.now();
  const g = new dagre.graphlib.Graph();
  const big = graph.nodes.length > kSmall;
  g.setGraph({
    rankdir: direction,
    nodesep: direction === 'LR' ? 26 : 40,
    ranksep: big ? 128 : 64, // see fastRanker
    marginx: 24,
    marginy: 24,
    ...(big ? { ranker: fastRanker as unknown as 'longest-path' } : { ranker: 'network-simplex' }),
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.uid, { width: kNodeWidth, height: kNodeHeight });
  for (const e of edgesOf(graph)) if (e.source !== e.target) g.setEdge(e.source, e.target);
  // A cycle typed in the YAML tab: dagre breaks it (acyclicer) and still draws every task.
  dagre.layout(g, big ? { customOrder: (lg: DagreGraph) => fastOrder(lg) } : {});
  const out: Positions = {};
  for (const n of graph.nodes) {
    const p = g.node(n.uid);
    out[n.uid] = { x: Math.round(p.x! - kNodeWidth / 2), y: Math.round(p.y! - kNodeHeight / 2) };
  }
  if (typeof performance !== 'undefined') {
    lastLayoutMs = performance.now() - t0;
    (globalThis as { __gantryLayout?: { tasks: number; ms: number } }).__gantryLayout = { tasks: graph.nodes.length, ms: lastLayoutMs };
  }
  return out;
}
