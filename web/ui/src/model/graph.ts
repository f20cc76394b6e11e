// The task graph of one pipeline document, and the way back.
//
// A node is a task: its whole YAML value (every field, known or not) plus its upstream
// references in `dependsOn` order. A reference is either another node (by uid, so renaming a
// task renames it everywhere) or a name that matches no task (kept as written, so an invalid
// file read into the editor is not silently "fixed"). Edges are derived from the references.
//
// fromGraph(p, toGraph(p)) deep-equals p: a task whose references did not change keeps its
// `dependsOn` exactly as it was (absent, empty or listed).

import { isPlainObject } from './util';

export type DepRef = { uid: string } | { dangling: string };

export interface TaskNode {
  uid: string;
  task: Record<string, unknown>;
  deps: DepRef[];
}

export interface PipelineGraph {
  nodes: TaskNode[];
}

export interface GraphEdge {
  id: string;
  source: string; // upstream uid
  target: string; // downstream uid
  index: number; // position in the target's dependsOn
}

let uidCounter = 0;
export function newUid(): string {
  uidCounter += 1;
  return `t${uidCounter.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export function tasksOf(pipeline: unknown): Record<string, unknown>[] {
  if (!isPlainObject(pipeline) || !isPlainObject(pipeline.spec)) return [];
  const tasks = pipeline.spec.tasks;
  return Array.isArray(tasks) ? tasks.map((t) => (isPlainObject(t) ? t : { name: String(t) })) : [];
}

function depNames(task: Record<string, unknown>): string[] {
  const d = task.dependsOn;
  if (Array.isArray(d)) return d.map((x) => String(x));
  if (typeof d === 'string') return [d];
  return [];
}

// `uidOf(name, index)` lets the caller keep uids stable across re-parses of the text (the
// editor matches tasks by name); by default uids are t0, t1, ... by position.
export function toGraph(pipeline: unknown, uidOf?: (name: string, index: number) => string): PipelineGraph {
  const tasks = tasksOf(pipeline);
  const used = new Set<string>();
  const uids = tasks.map((t, i) => {
    let uid = uidOf ? uidOf(String(t.name ?? ''), i) : `t${i}`;
    if (used.has(uid)) uid = newUid();
    used.add(uid);
    return uid;
  });
  const byName = new Map<string, string>();
  tasks.forEach((t, i) => {
    const name = String(t.name ?? '');
    if (!byName.has(name)) byName.set(name, uids[i]);
  });
  return {
    nodes: tasks.map((task, i) => ({
      uid: uids[i],
      task,
      deps: depNames(task).map((name) => {
        const uid = byName.get(name);
        return uid ? { uid } : { dangling: name };
      }),
    })),
  };
}

export function edgesOf(graph: PipelineGraph): GraphEdge[] {
  const known = new Set(graph.nodes.map((n) => n.uid));
  const edges: GraphEdge[] = [];
  for (const node of graph.nodes) {
    node.deps.forEach((d, index) => {
      if ('uid' in d && known.has(d.uid)) edges.push({ id: `${d.uid}->${node.uid}#${index}`, source: d.uid, target: node.uid, index });
    });
  }
  return edges;
}

export function fromGraph(pipeline: unknown, graph: PipelineGraph): Record<string, unknown> {
  const base = isPlainObject(pipeline) ? pipeline : {};
  const spec = isPlainObject(base.spec) ? base.spec : {};
  const nameOf = new Map(graph.nodes.map((n) => [n.uid, String(n.task.name ?? '')]));
  const tasks = graph.nodes.map((node) => {
    const names = node.deps.map((d) => ('uid' in d ? (nameOf.get(d.uid) ?? '') : d.dangling));
    const before = node.task.dependsOn;
    const same =
      (before === undefined && names.length === 0) ||
      (Array.isArray(before) && before.length === names.length && before.every((x, i) => String(x) === names[i])) ||
      (typeof before === 'string' && names.length === 1 && names[0] === before);
    if (same) return node.task;
    const task = { ...node.task };
    if (names.length === 0) delete task.dependsOn;
    else task.dependsOn = names;
    return task;
  });
  if (spec.tasks === undefined && tasks.length === 0) return base;
  const sameTasks = Array.isArray(spec.tasks) && spec.tasks.length === tasks.length && tasks.every((t, i) => (spec.tasks as unknown[])[i] === t);
  if (sameTasks) return base;
  return { ...base, spec: { ...spec, tasks } };
}

// ---- editing ----

export function updateTask(graph: PipelineGraph, uid: string, task: Record<string, unknown>): PipelineGraph {
  return { nodes: graph.nodes.map((n) => (n.uid === uid ? { ...n, task } : n)) };
}

export function addTask(graph: PipelineGraph, task: Record<string, unknown>, uid = newUid()): PipelineGraph {
  return { nodes: [...graph.nodes, { uid, task, deps: [] }] };
}

export function removeTasks(graph: PipelineGraph, uids: ReadonlySet<string>): PipelineGraph {
  const names = new Map(graph.nodes.filter((n) => uids.has(n.uid)).map((n) => [n.uid, String(n.task.name ?? '')]));
  return {
    nodes: graph.nodes
      .filter((n) => !uids.has(n.uid))
      .map((n) => {
        const deps = n.deps.filter((d) => !('uid' in d && names.has(d.uid)));
        return deps.length === n.deps.length ? n : { ...n, deps };
      }),
  };
}

export function addEdge(graph: PipelineGraph, source: string, target: string): PipelineGraph {
  return {
    nodes: graph.nodes.map((n) => (n.uid === target ? { ...n, deps: [...n.deps, { uid: source }] } : n)),
  };
}

export function removeEdge(graph: PipelineGraph, edge: Pick<GraphEdge, 'target' | 'index'>): PipelineGraph {
  return {
    nodes: graph.nodes.map((n) => (n.uid === edge.target ? { ...n, deps: n.deps.filter((_, i) => i !== edge.index) } : n)),
  };
}

// A name for a new task that no task of the graph has: `base`, `base-2`, `base-3` ...
export function uniqueName(graph: PipelineGraph, base: string): string {
  const taken = new Set(graph.nodes.map((n) => String(n.task.name ?? '')));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

// Renames a task; the references to it follow (they are by uid).
export function renameTask(graph: PipelineGraph, uid: string, name: string): PipelineGraph {
  return { nodes: graph.nodes.map((n) => (n.uid === uid ? { ...n, task: { ...n.task, name } } : n)) };
}
