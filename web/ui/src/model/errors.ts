// Validation errors of the server (POST /pipelines?dryRun=true answers 400 with
// {"errors":[{"file","line","column","path","message"}]}, exactly as `gantry pipeline validate`
// reports them) mapped onto what the editor shows: a task node and one of its fields, an edge
// (an entry of a task's dependsOn), a field of the pipeline panel, or the document in general.

import { isNode, LineCounter, parseDocument } from 'yaml';
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
  // A warning (the dry run's `warnings`: valid, but the cluster can never hold it) is shown in
  // amber and does not stop a save; an error is red.
  severity?: 'error' | 'warning';
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

// ---- all problems of a document at once ----

// The server's errors and the browser's own checks, together: every server error, then each
// client error the server did not report on the same document and path (the server's word
// wins where both speak). Sorted by document, then line (errors without a line last).
export function mergeErrors(server: readonly LocatedError[], client: readonly LocatedError[]): LocatedError[] {
  const said = new Set(server.map((e) => `${e.doc}|${e.path ?? ''}`));
  const out = [...server, ...client.filter((e) => !said.has(`${e.doc}|${e.path ?? ''}`))];
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.doc - b.e.doc || (a.e.line ?? Infinity) - (b.e.line ?? Infinity) || a.i - b.i)
    .map((x) => x.e);
}

// A document of the bundle parsed again with line numbers (its nodes' offsets are in `source`).
function parsedWithLines(bundle: Bundle, doc: number) {
  const d = bundle.docs[doc];
  if (!d) return null;
  const counter = new LineCounter();
  const parsed = parseDocument(d.source, { lineCounter: counter, prettyErrors: false });
  const lineAt = (offset: number) => d.firstLine + counter.linePos(offset).line - 1;
  return { parsed, lineAt };
}

// The line (1-based, in the whole text) where `path` ("spec.tasks[1].resources.gpu") is written,
// or, when that field is absent, where its closest written parent is; undefined without one.
export function lineOfPath(bundle: Bundle, doc: number, path: string | undefined): number | undefined {
  if (!path) return undefined;
  const p = parsedWithLines(bundle, doc);
  if (!p) return undefined;
  const tokens = parsePath(path);
  for (let n = tokens.length; n > 0; n--) {
    const node = p.parsed.getIn(tokens.slice(0, n), true);
    if (isNode(node) && node.range) return p.lineAt(node.range[0]);
  }
  return undefined;
}

// The index of the task of `spec.tasks` written on `line` of document `doc` (a warning the
// server gives by line only), or undefined.
export function taskAtLine(bundle: Bundle, doc: number, line: number): number | undefined {
  const p = parsedWithLines(bundle, doc);
  if (!p) return undefined;
  const tasks = p.parsed.getIn(['spec', 'tasks'], true);
  if (!isNode(tasks) || !('items' in tasks)) return undefined;
  const items = (tasks as unknown as { items: unknown[] }).items;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isNode(item) || !item.range) continue;
    // A block sequence item's node starts after "- "; its last line is before the next item.
    const first = p.lineAt(item.range[0]);
    const last = p.lineAt(Math.max(item.range[0], item.range[2] - 1));
    if (line >= first && line <= last) return i;
  }
  return undefined;
}

// The dry run's warnings ({file, line, column, message}: tasks the cluster can never hold) as
// located warnings: on the task written at their line, else on the document.
export function locateWarnings(warnings: readonly ServerError[], bundle: Bundle): LocatedError[] {
  return locateErrors(warnings, bundle).map((w) => {
    const task = w.line ? taskAtLine(bundle, w.doc, w.line) : undefined;
    return { ...w, severity: 'warning' as const, target: task === undefined ? w.target : { kind: 'task' as const, task, field: '' } };
  });
}

// Client errors (a path, no line) with the line their path is written on, so that they mark
// the YAML tab too.
export function withLines(errors: readonly LocatedError[], bundle: Bundle): LocatedError[] {
  return errors.map((e) => (e.line || e.doc < 0 ? e : { ...e, line: lineOfPath(bundle, e.doc, e.path) }));
}
