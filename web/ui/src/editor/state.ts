// The editor's state: the YAML bundle (source of truth), the graph of the pipeline shown, the
// node positions, the selection and the undo history. Every change of the graph or of a panel
// goes through the bundle (minimal-diff YAML update), so the YAML tab always shows exactly what
// Save sends.

import { parseBundle, updateDocument } from '../model/bundle';
import type { Bundle, YamlProblem } from '../model/bundle';
import { toGraph, fromGraph } from '../model/graph';
import type { PipelineGraph } from '../model/graph';
import { layoutGraph, kNodeWidth, kNodeHeight } from '../model/layout';
import type { Direction, Positions } from '../model/layout';
import { keyOrder } from '../model/spec';
import { isPlainObject } from '../model/util';

export type Selection = { kind: 'task'; uid: string } | { kind: 'pipeline' };

export interface EditorState {
  bundle: Bundle;
  active: number; // index of the Pipeline document shown, -1 when there is none
  graph: PipelineGraph;
  positions: Positions;
  direction: Direction; // of the layout and of the handles (left/right or top/bottom)
  selection: Selection;
  yamlText: string; // what the YAML tab shows (may not parse while being typed)
  yamlProblems: YamlProblem[];
  undo: string[];
  redo: string[];
  fitRequest: number; // incremented when the view should fit the graph
}

export type Action =
  | { type: 'load'; text: string; layout?: SavedLayout; active?: string }
  | { type: 'graph'; update: (g: PipelineGraph) => PipelineGraph; select?: Selection }
  | { type: 'pipeline'; update: (value: Record<string, unknown>) => Record<string, unknown> }
  | { type: 'yaml'; text: string }
  | { type: 'positions'; positions: Positions }
  | { type: 'select'; selection: Selection }
  | { type: 'active'; index: number }
  | { type: 'layout' }
  | { type: 'direction'; direction: Direction }
  | { type: 'undo' }
  | { type: 'redo' };

export function pipelineIndexes(bundle: Bundle): number[] {
  return bundle.docs.map((d, i) => (isPlainObject(d.value) && d.value.kind === 'Pipeline' ? i : -1)).filter((i) => i >= 0);
}

export function pipelineName(bundle: Bundle, index: number): string {
  const v = bundle.docs[index]?.value;
  return isPlainObject(v) && isPlainObject(v.metadata) ? String(v.metadata.name ?? '') : '';
}

// The graph of document `active`, keeping the uids (and so positions and selection) of tasks
// that keep their names.
function deriveGraph(bundle: Bundle, active: number, previous?: PipelineGraph): PipelineGraph {
  if (active < 0) return { nodes: [] };
  const byName = new Map<string, string>();
  previous?.nodes.forEach((n) => byName.set(String(n.task.name ?? ''), n.uid));
  const value = bundle.docs[active].value;
  let i = 0;
  return toGraph(value, (name) => byName.get(name) ?? `u${Date.now().toString(36)}${(i++).toString(36)}${Math.random().toString(36).slice(2, 5)}`);
}

export interface SavedLayout {
  direction?: Direction;
  positions: Record<string, { x: number; y: number }>; // by task name
}

// Positions for every node: kept when known, laid out when none is, and placed after the
// drawing for a few new ones (a task added in the YAML tab).
function placeAll(graph: PipelineGraph, known: Positions, direction: Direction): Positions {
  const missing = graph.nodes.filter((n) => !known[n.uid]);
  if (missing.length === 0) return known;
  if (missing.length === graph.nodes.length || missing.length > 3) {
    const laid = layoutGraph(graph, direction);
    return missing.length === graph.nodes.length ? laid : { ...laid, ...pick(known, graph) };
  }
  const ps = Object.values(known);
  const out = { ...known };
  if (direction === 'LR') {
    const maxX = ps.length ? Math.max(...ps.map((p) => p.x)) : 0;
    missing.forEach((n, i) => (out[n.uid] = { x: maxX + kNodeWidth + 80, y: 40 + i * 110 }));
  } else {
    const maxY = ps.length ? Math.max(...ps.map((p) => p.y)) : 0;
    missing.forEach((n, i) => (out[n.uid] = { x: 40 + i * (kNodeWidth + 40), y: maxY + kNodeHeight + 70 }));
  }
  return out;
}

// Left to right or top to bottom: whichever shows the graph larger in the editor's canvas
// (the canvas is the window minus the navigation, palette and side panel).
function chooseDirection(graph: PipelineGraph): Direction {
  if (graph.nodes.length < 2 || graph.nodes.length > 150) return 'LR';
  const w = typeof window === 'undefined' ? 860 : Math.max(400, window.innerWidth - 600);
  const h = typeof window === 'undefined' ? 760 : Math.max(300, window.innerHeight - 110);
  const zoom = (d: Direction) => {
    const p = Object.values(layoutGraph(graph, d));
    const W = Math.max(...p.map((q) => q.x)) - Math.min(...p.map((q) => q.x)) + kNodeWidth;
    const H = Math.max(...p.map((q) => q.y)) - Math.min(...p.map((q) => q.y)) + kNodeHeight;
    return Math.min(1, w / W, h / H);
  };
  return zoom('TB') > zoom('LR') + 0.05 ? 'TB' : 'LR';
}

function pick(known: Positions, graph: PipelineGraph): Positions {
  const out: Positions = {};
  for (const n of graph.nodes) if (known[n.uid]) out[n.uid] = known[n.uid];
  return out;
}

export function initialState(text: string, layout?: SavedLayout, activeName?: string): EditorState {
  const bundle = parseBundle(text);
  const pipelines = bundle.problems.length ? [] : pipelineIndexes(bundle);
  const active = pipelines.find((i) => pipelineName(bundle, i) === activeName) ?? pipelines[0] ?? -1;
  const graph = active >= 0 ? deriveGraph(bundle, active) : { nodes: [] };
  const known: Positions = {};
  const byName = layout?.positions ?? {};
  for (const n of graph.nodes) if (byName[String(n.task.name)]) known[n.uid] = byName[String(n.task.name)];
  const direction = layout?.direction ?? (Object.keys(known).length ? 'LR' : chooseDirection(graph));
  return {
    bundle,
    active,
    graph,
    direction,
    positions: placeAll(graph, known, direction),
    selection: { kind: 'pipeline' },
    yamlText: text,
    yamlProblems: bundle.problems,
    undo: [],
    redo: [],
    fitRequest: 1,
  };
}

function withBundle(state: EditorState, bundle: Bundle, graph: PipelineGraph, extra: Partial<EditorState> = {}): EditorState {
  if (bundle.text === state.bundle.text && graph === state.graph) return { ...state, ...extra };
  return {
    ...state,
    bundle,
    graph,
    yamlText: bundle.text,
    yamlProblems: [],
    undo: [...state.undo.slice(-99), state.bundle.text],
    redo: [],
    ...extra,
  };
}

// Re-reads a text (undo, redo, YAML tab) keeping what can be kept.
function reread(state: EditorState, text: string, history: Partial<EditorState>): EditorState {
  const bundle = parseBundle(text);
  if (bundle.problems.length) return { ...state, yamlText: text, yamlProblems: bundle.problems, ...history };
  const pipelines = pipelineIndexes(bundle);
  const currentName = pipelineName(state.bundle, state.active);
  const active = pipelines.find((i) => pipelineName(bundle, i) === currentName) ?? (pipelines.includes(state.active) ? state.active : (pipelines[0] ?? -1));
  const graph = deriveGraph(bundle, active, state.graph);
  const positions = placeAll(graph, pick(state.positions, graph), state.direction);
  const selection: Selection = state.selection.kind === 'task' && graph.nodes.some((n) => n.uid === (state.selection as { uid: string }).uid) ? state.selection : { kind: 'pipeline' };
  return { ...state, bundle, active, graph, positions, selection, yamlText: text, yamlProblems: [], ...history };
}

export function reducer(state: EditorState, action: Action): EditorState {
  switch (action.type) {
    case 'load':
      return initialState(action.text, action.layout, action.active);
    case 'graph': {
      if (state.active < 0) return state;
      const graph = action.update(state.graph);
      if (graph === state.graph) return action.select ? { ...state, selection: action.select } : state;
      const value = fromGraph(state.bundle.docs[state.active].value, graph);
      const bundle = updateDocument(state.bundle, state.active, value, keyOrder);
      const positions = placeAll(graph, pick(state.positions, graph), state.direction);
      return withBundle(state, bundle, graph, { positions, ...(action.select ? { selection: action.select } : {}) });
    }
    case 'pipeline': {
      if (state.active < 0) return state;
      const old = state.bundle.docs[state.active].value as Record<string, unknown>;
      const value = action.update(old);
      if (value === old) return state;
      const bundle = updateDocument(state.bundle, state.active, value, keyOrder);
      return withBundle(state, bundle, deriveGraph(bundle, state.active, state.graph));
    }
    case 'yaml': {
      if (action.text === state.yamlText) return state;
      const next = reread(state, action.text, {});
      if (next.yamlProblems.length || next.bundle.text === state.bundle.text) return next;
      return { ...next, undo: [...state.undo.slice(-99), state.bundle.text], redo: [] };
    }
    case 'positions':
      return { ...state, positions: action.positions };
    case 'select':
      return { ...state, selection: action.selection };
    case 'active': {
      const graph = deriveGraph(state.bundle, action.index);
      const direction = chooseDirection(graph);
      return { ...state, active: action.index, graph, direction, positions: layoutGraph(graph, direction), selection: { kind: 'pipeline' }, fitRequest: state.fitRequest + 1 };
    }
    case 'layout':
      return { ...state, positions: layoutGraph(state.graph, state.direction), fitRequest: state.fitRequest + 1 };
    case 'direction':
      return { ...state, direction: action.direction, positions: layoutGraph(state.graph, action.direction), fitRequest: state.fitRequest + 1 };
    case 'undo': {
      const prev = state.undo[state.undo.length - 1];
      if (prev === undefined) return state;
      return reread(state, prev, { undo: state.undo.slice(0, -1), redo: [...state.redo, state.bundle.text] });
    }
    case 'redo': {
      const next = state.redo[state.redo.length - 1];
      if (next === undefined) return state;
      return reread(state, next, { redo: state.redo.slice(0, -1), undo: [...state.undo, state.bundle.text] });
    }
  }
}
