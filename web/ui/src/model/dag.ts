// DAG checks on the task graph: would a new edge close a cycle, and the cycles already there
// (a file typed in the YAML tab may have one; the loader names it as "cycle: a -> b -> a").

import type { PipelineGraph } from './graph';
import { edgesOf } from './graph';
import type { Key, Params, T } from '../i18n/t';

// A refusal carries a message key of i18n/en.ts and its parameters: the canvas says it in the
// language chosen (connectionMessage).
export type ConnectionCheck =
  | { ok: true }
  | { ok: false; reason: 'self' | 'duplicate' | 'cycle'; key: Key; params: Params; cycle?: string[] };

// A refusal in the translator's language: "Refused: this edge would close a cycle a -> b -> a".
export const connectionMessage = (r: Extract<ConnectionCheck, { ok: false }>, t: T) => t(r.key, r.params);

function nameOf(graph: PipelineGraph, uid: string): string {
  return String(graph.nodes.find((n) => n.uid === uid)?.task.name ?? uid);
}

// downstream adjacency: uid -> uids that depend on it
function downstream(graph: PipelineGraph): Map<string, string[]> {
  const out = new Map<string, string[]>(graph.nodes.map((n) => [n.uid, []]));
  for (const e of edgesOf(graph)) out.get(e.source)?.push(e.target);
  return out;
}

// A path from `from` to `to` following downstream edges (both ends included), or null.
function pathBetween(adj: Map<string, string[]>, from: string, to: string): string[] | null {
  const parent = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const cur = queue.shift()!;
    if (cur === to) {
      const path: string[] = [];
      for (let at: string | null = cur; at !== null; at = parent.get(at) ?? null) path.push(at);
      return path.reverse();
    }
    for (const next of adj.get(cur) ?? []) {
      if (!parent.has(next)) {
        parent.set(next, cur);
        queue.push(next);
      }
    }
  }
  return null;
}

// May `target` depend on `source` (an edge source -> target)? Refused when it would close a
// cycle; the message names it the way the loader does: "a -> b -> c -> a".
export function checkConnection(graph: PipelineGraph, source: string, target: string): ConnectionCheck {
  if (source === target) {
    const n = nameOf(graph, source);
    return { ok: false, reason: 'self', key: 'dag.self', params: { task: n }, cycle: [n, n] };
  }
  const t = graph.nodes.find((n) => n.uid === target);
  if (t?.deps.some((d) => 'uid' in d && d.uid === source)) {
    return { ok: false, reason: 'duplicate', key: 'dag.duplicate', params: { target: nameOf(graph, target), source: nameOf(graph, source) } };
  }
  const back = pathBetween(downstream(graph), target, source);
  if (back) {
    const names = [nameOf(graph, source), ...back.map((u) => nameOf(graph, u))];
    return {
      ok: false,
      reason: 'cycle',
      key: 'dag.cycle',
      params: { cycle: names.join(' -> ') },
      cycle: names,
    };
  }
  return { ok: true };
}

// Every node on some cycle (Tarjan's strongly connected components of size > 1, or a
// self-edge); the editor draws them in red.
export function nodesOnCycles(graph: PipelineGraph): Set<string> {
  const adj = downstream(graph);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result = new Set<string>();
  let counter = 0;
  const strong = (v: string) => {
    // Iterative to survive deep graphs (a 10,000-task chain).
    const work: { v: string; i: number }[] = [{ v, i: 0 }];
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    while (work.length) {
      const frame = work[work.length - 1];
      const next = adj.get(frame.v) ?? [];
      if (frame.i < next.length) {
        const w = next[frame.i++];
        if (w === frame.v) result.add(w);
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter);
          counter++;
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) === index.get(frame.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        if (component.length > 1) component.forEach((c) => result.add(c));
      }
    }
  };
  for (const n of graph.nodes) if (!index.has(n.uid)) strong(n.uid);
  return result;
}
