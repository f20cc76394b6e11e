// Validation errors of the server (POST /pipelines?dryRun=true answers 400 with
// {"errors":[{"file","line","column","path","message"}]}, exactly as `gantry pipeline validate`
// reports them) mapped onto what the editor shows: a task node and one of its fields, an edge
// (an entry of a task's dependsOn), a field of the pipeline panel, or the document in general.

import type { Bundle } from './bundle';
import { documentLines } from './bundle';

export interface ServerError {
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  message: string;
}

export type PathToken = string | number;

// "spec.tasks[1].resources.gpu" -> ["spec", "tasks", 1, "resources", "gpu"]
export function parsePath(path: string): PathToken[] {
  const out: PathToken[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path))) out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return out;
}

export function formatPath(tokens: readonly PathToken[]): string {
  return tokens.map((t, i) => (typeof t === 'number' ? `[${t}]` : i === 0 ? t : `.${t}`)).join('');
}

export type ErrorTarget =
  | { kind: 'task'; task: number; field: string }
  | { kind: 'edge'; task: number; dep: number }
  | { kind: 'pipeline'; field: string }
  | { kind: 'document' };

export function targetOf(path: string | undefined): ErrorTarget {
  if (!path) return { kind: 'document' };
  const t = parsePath(path);
  if (t[0] === 'spec' && t[1] === 'tasks' && typeof t[2] === 'number') {
    const rest = t.slice(3);
    if (rest[0] === 'dependsOn' && typeof rest[1] === 'number') return { kind: 'edge', task: t[2], dep: rest[1] };
    return { kind: 'task', task: t[2], field: formatPath(rest) };
  }
  if (t[0] === 'spec') return { kind: 'pipeline', field: formatPath(t.slice(1)) };
  if (t[0] === 'metadata') return { kind: 'pipeline', field: formatPath(t) };
  return { kind: 'document' };
}

export interface LocatedError extends ServerError {
  doc: number; // index in the bundle
  target: ErrorTarget;
}

// Which document of the bundle an error is about: by its line (the server reports the line in
// the whole body it was sent), else the only document.
export function locateErrors(errors: readonly ServerError[], bundle: Bundle): LocatedError[] {
  const ranges = documentLines(bundle);
  return errors.map((e) => {
    let doc = ranges.length === 1 ? 0 : -1;
    if (e.line && e.line > 0) {
      const at = ranges.findIndex(([a, b]) => e.line! >= a && e.line! <= b);
      if (at >= 0) doc = at;
      else if (ranges.length) doc = e.line! < ranges[0][0] ? 0 : ranges.length - 1;
    }
    return { ...e, doc, target: targetOf(e.path) };
  });
}

// The errors of one document, grouped for the canvas and the panels.
export interface DocumentErrors {
  byTask: Map<number, LocatedError[]>; // task index -> errors on it, its fields or its edges
  byEdge: Map<string, LocatedError[]>; // `${task}:${dep}` -> errors
  pipeline: LocatedError[];
  general: LocatedError[];
}

export function groupErrors(errors: readonly LocatedError[], doc: number): DocumentErrors {
  const out: DocumentErrors = { byTask: new Map(), byEdge: new Map(), pipeline: [], general: [] };
  const push = <K>(m: Map<K, LocatedError[]>, k: K, e: LocatedError) => m.set(k, [...(m.get(k) ?? []), e]);
  for (const e of errors) {
    if (e.doc !== doc) continue;
    const t = e.target;
    if (t.kind === 'task') push(out.byTask, t.task, e);
    else if (t.kind === 'edge') {
      push(out.byTask, t.task, e);
      push(out.byEdge, `${t.task}:${t.dep}`, e);
    } else if (t.kind === 'pipeline') out.pipeline.push(e);
    else out.general.push(e);
  }
  return out;
}

// The messages for one field of a panel: the field itself and anything below it
// ("resources" matches "resources.gpu"; "replicas" matches "replicas.worker").
export function messagesFor(errors: readonly LocatedError[] | undefined, field: string): string[] {
  if (!errors) return [];
  return errors
    .filter((e) => {
      const f = e.target.kind === 'task' || e.target.kind === 'pipeline' ? e.target.field : e.target.kind === 'edge' ? 'dependsOn' : '';
      return f === field || f.startsWith(field + '.') || f.startsWith(field + '[');
    })
    .map((e) => e.message);
}
