// A pipeline file as the editor holds it: the YAML text, split into its documents (kind:
// Pipeline and kind: Pool, as `gantry pipeline validate` and POST /pipelines accept them).
//
// The YAML text is the source of truth. Each document keeps its parsed `yaml` Document (with
// comments, quoting and flow style) and the exact source slice it came from. An edit made in
// the graph or a side panel produces a new plain value for one document; `updateDocument`
// applies it to the parsed Document as a minimal diff (only the nodes whose value changed are
// touched), and only that document is re-printed. Untouched documents keep their original
// bytes, so YAML → graph → YAML is the identity on the text, not only on the values.

import { LineCounter, parseAllDocuments, Document, isMap, isSeq, isScalar, isPair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Node as YamlNode, ToStringOptions } from 'yaml';
import { deepEqual, isPlainObject } from './util';

export interface YamlProblem {
  line: number; // 1-based
  column: number; // 1-based
  message: string;
}

export interface BundleDoc {
  doc: Document.Parsed | Document;
  value: unknown; // doc.toJS()
  source: string; // the exact text of this document, with what precedes it since the last one
  dirty: boolean; // re-print from `doc` instead of reusing `source`
  options: ToStringOptions;
  firstLine: number; // 1-based line of `source`'s first character in the whole text
}

export interface Bundle {
  text: string;
  docs: BundleDoc[];
  problems: YamlProblem[]; // syntax errors: the docs are not usable when non-empty
}

const kBaseOptions: ToStringOptions = { lineWidth: 0, flowCollectionPadding: false };

// The printing options that reproduce `source` from `doc` (sequence indentation is the one
// choice that varies between hand-written files); the block style of the project when neither
// does, which only matters once the document is edited.
function chooseOptions(doc: Document.Parsed, source: string): ToStringOptions {
  for (const indentSeq of [false, true]) {
    const options = { ...kBaseOptions, indentSeq };
    if (doc.toString(options) === source) return options;
  }
  // Leading comments before the first document are part of its source; compare the rest.
  const usesIndentedSeq = /:\n(\s+)\s{2}- /.test(source);
  return { ...kBaseOptions, indentSeq: usesIndentedSeq };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function parseBundle(text: string): Bundle {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: YamlProblem[] = [];
  const list = Array.isArray(parsed) ? parsed : [];
  if (!Array.isArray(parsed)) {
    // An EmptyStream: no documents at all (an empty or comment-only text).
    return { text, docs: [], problems };
  }
  for (const doc of list) {
    for (const e of doc.errors) {
      const pos = lineCounter.linePos(e.pos[0]);
      problems.push({ line: pos.line, column: pos.col, message: e.message.split('\n')[0] });
    }
  }
  const docs: BundleDoc[] = [];
  let from = 0;
  list.forEach((doc, i) => {
    const end = i === list.length - 1 ? text.length : doc.range[2];
    const source = text.slice(from, end);
    docs.push({
      doc,
      value: problems.length ? null : doc.toJS({ maxAliasCount: 100 }),
      source,
      dirty: false,
      options: problems.length ? kBaseOptions : chooseOptions(doc, source),
      firstLine: lineOf(text, from),
    });
    from = end;
  });
  // A blank document produced by a trailing `---` is kept (it prints as it was read).
  return { text, docs, problems };
}

function printDoc(d: BundleDoc): string {
  if (!d.dirty) return d.source;
  let out = d.doc.toString(d.options);
  if (!out.endsWith('\n')) out += '\n';
  return out;
}

function assemble(docs: BundleDoc[]): Bundle {
  const parts = docs.map(printDoc);
  let line = 1;
  const withLines = docs.map((d, i) => {
    const firstLine = line;
    for (const c of parts[i]) if (c === '\n') line++;
    return { ...d, source: parts[i], dirty: false, firstLine };
  });
  return { text: parts.join(''), docs: withLines, problems: [] };
}

// ---- minimal-diff update of a parsed document ----

// Where a new key goes in a map: before the first existing key that comes later in `order`.
export type KeyOrder = (path: readonly (string | number)[]) => readonly string[] | undefined;

function createNode(doc: Document, value: unknown, flow: boolean): YamlNode {
  const node = doc.createNode(value) as YamlNode;
  if (flow && (isMap(node) || isSeq(node))) markFlow(node);
  else markSmallFlow(node);
  quoteCronLike(node);
  return node;
}

// Cron expressions and other texts with '*' or '#' read best quoted, as the examples write them
// ("*/10 * * * *"); the printer would quote some of them anyway and not others.
function quoteCronLike(node: YamlNode | null | undefined) {
  if (!node) return;
  if (isScalar(node)) {
    if (typeof node.value === 'string' && /[*#]|^\s|\s$/.test(node.value) && node.type !== Scalar.QUOTE_SINGLE) node.type = Scalar.QUOTE_DOUBLE;
  } else if (isMap(node)) {
    for (const pair of node.items) quoteCronLike(pair.value as YamlNode);
  } else if (isSeq(node)) {
    for (const item of node.items) quoteCronLike(item as YamlNode);
  }
}

function markFlow(node: YamlNode) {
  if (isMap(node) || isSeq(node)) {
    node.flow = true;
    for (const item of node.items) {
      if (isPair(item) && item.value) markFlow(item.value as YamlNode);
      else if (!isPair(item)) markFlow(item as YamlNode);
    }
  }
}

// Small maps of scalars read best in flow style ({cpu: "2", memory: 8Gi}), as the shipped
// examples write them; everything else in block style.
function prefersFlow(value: unknown, parentFlow: boolean): boolean {
  if (parentFlow) return true;
  if (JSON.stringify(value).length > 72) return false;
  if (Array.isArray(value)) return value.length <= 6 && value.every((v) => v === null || typeof v !== 'object');
  if (isPlainObject(value)) {
    const entries = Object.values(value);
    return entries.length > 0 && entries.length <= 4 && entries.every((v) => v === null || typeof v !== 'object');
  }
  return false;
}

function syncScalar(node: Scalar, value: unknown) {
  if (node.value !== value) {
    node.value = value;
    // A plain scalar whose new text would read back as another type is quoted by the printer;
    // a quoted one stays quoted; a block scalar for a short single-line value becomes plain.
    if ((node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) && typeof value === 'string' && !value.includes('\n')) {
      node.type = Scalar.PLAIN;
    }
    if (typeof value === 'string' && (node.type === Scalar.PLAIN || node.type === undefined) && /^\s|\s$|^$|[*#]/.test(value))
      node.type = Scalar.QUOTE_DOUBLE;
  }
}

// Returns the node to store (the same node when it could be updated in place).
function syncNode(
  doc: Document,
  node: YamlNode | null | undefined,
  oldValue: unknown,
  newValue: unknown,
  path: (string | number)[],
  order: KeyOrder | undefined,
  parentFlow: boolean,
): YamlNode {
  if (node && deepEqual(oldValue, newValue)) return node;
  if (isPlainObject(newValue) && node && isMap(node) && isPlainObject(oldValue)) {
    syncMap(doc, node, oldValue, newValue, path, order);
    return node;
  }
  if (Array.isArray(newValue) && node && isSeq(node) && Array.isArray(oldValue)) {
    // An empty list printed `[]` that now gets tasks or other maps: block style, as the
    // examples write a list of maps (not one long line of `[{...}, {...}]`).
    if (node.flow && !parentFlow && oldValue.length === 0 && !prefersFlow(newValue, false)) node.flow = false;
    syncSeq(doc, node, oldValue, newValue, path, order);
    return node;
  }
  if (node && isScalar(node) && (newValue === null || typeof newValue !== 'object')) {
    syncScalar(node, newValue);
    return node;
  }
  const flow = prefersFlow(newValue, parentFlow);
  return createNode(doc, newValue, flow);
}

function syncMap(
  doc: Document,
  map: YAMLMap,
  oldValue: Record<string, unknown>,
  newValue: Record<string, unknown>,
  path: (string | number)[],
  order: KeyOrder | undefined,
) {
  const keyOf = (pair: { key: unknown }) => (isScalar(pair.key) ? String(pair.key.value) : String(pair.key));
  // Removed keys.
  map.items = map.items.filter((pair) => Object.prototype.hasOwnProperty.call(newValue, keyOf(pair)));
  for (const [key, value] of Object.entries(newValue)) {
    const at = map.items.findIndex((pair) => keyOf(pair) === key);
    if (at >= 0) {
      const pair = map.items[at];
      pair.value = syncNode(doc, pair.value as YamlNode, oldValue[key], value, [...path, key], order, !!map.flow);
      continue;
    }
    const pair = doc.createPair(key, null);
    pair.value = createNode(doc, value, prefersFlow(value, !!map.flow));
    const canonical = order?.(path);
    let insertAt = map.items.length;
    if (canonical) {
      const rank = canonical.indexOf(key);
      if (rank >= 0) {
        const later = map.items.findIndex((p) => {
          const r = canonical.indexOf(keyOf(p));
          return r > rank;
        });
        if (later >= 0) insertAt = later;
      }
    }
    map.items.splice(insertAt, 0, pair);
  }
}

function syncSeq(
  doc: Document,
  seq: YAMLSeq,
  oldValue: unknown[],
  newValue: unknown[],
  path: (string | number)[],
  order: KeyOrder | undefined,
) {
  const oldNodes = seq.items as YamlNode[];
  const used = new Array<boolean>(oldNodes.length).fill(false);
  const items: YamlNode[] = [];
  newValue.forEach((value, j) => {
    // 1. the same element at the same place; 2. the same element moved; 3. the element at this
    // place, edited; 4. a new node.
    if (j < oldNodes.length && !used[j] && deepEqual(oldValue[j], value)) {
      used[j] = true;
      items.push(oldNodes[j]);
      return;
    }
    const moved = oldValue.findIndex((old, i) => !used[i] && deepEqual(old, value));
    if (moved >= 0) {
      used[moved] = true;
      items.push(oldNodes[moved]);
      return;
    }
    const sameName =
      isPlainObject(value) && typeof value.name === 'string'
        ? oldValue.findIndex((old, i) => !used[i] && isPlainObject(old) && old.name === value.name)
        : -1;
    const at = sameName >= 0 ? sameName : j < oldNodes.length && !used[j] && newValue.length === oldValue.length ? j : -1;
    if (at >= 0) {
      used[at] = true;
      items.push(syncNode(doc, oldNodes[at], oldValue[at], value, [...path, j], order, !!seq.flow));
      return;
    }
    items.push(createNode(doc, value, prefersFlow(value, !!seq.flow)));
  });
  seq.items = items;
}

// Replaces document `index` of the bundle by `value`, touching as little of its text as possible.
export function updateDocument(bundle: Bundle, index: number, value: unknown, order?: KeyOrder): Bundle {
  const d = bundle.docs[index];
  if (deepEqual(d.value, value)) return bundle;
  const doc = d.doc.clone();
  doc.contents = syncNode(doc, doc.contents as YamlNode, d.value, value, [], order, false) as typeof doc.contents;
  const docs = bundle.docs.slice();
  docs[index] = { ...d, doc, value, dirty: true };
  return assemble(docs);
}

// A new document for `value`, in the project's style: small maps and lists of scalars in flow
// style, cron-like strings quoted, sequences not indented under their key.
export const kNewDocumentOptions: ToStringOptions = { ...kBaseOptions, indentSeq: false };
export function newDocument(value: unknown): Document {
  const doc = new Document(value, { version: '1.2' });
  markSmallFlow(doc.contents as YamlNode);
  quoteCronLike(doc.contents as YamlNode);
  return doc;
}

// Appends a new document (printed in the project's style).
export function appendDocument(bundle: Bundle, value: unknown): Bundle {
  const doc = newDocument(value);
  doc.directives!.docStart = bundle.docs.length > 0 ? true : null;
  const options = kNewDocumentOptions;
  const docs = bundle.docs.slice();
  // The previous document must end with a newline before the `---`.
  if (docs.length && !docs[docs.length - 1].source.endsWith('\n')) {
    const last = docs[docs.length - 1];
    docs[docs.length - 1] = { ...last, source: last.source + '\n' };
  }
  docs.push({ doc, value, source: '', dirty: true, options, firstLine: 0 });
  return assemble(docs);
}

export function removeDocument(bundle: Bundle, index: number): Bundle {
  // A later document's source starts with its own `---`, so the rest stays valid YAML.
  return assemble(bundle.docs.filter((_, i) => i !== index));
}

function markSmallFlow(node: YamlNode | null) {
  if (!node) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const v = pair.value as YamlNode | null;
      if (v && (isMap(v) || isSeq(v))) {
        const js = (v as YAMLMap | YAMLSeq).toJSON();
        if (prefersFlow(js, false)) markFlow(v);
        else markSmallFlow(v);
      }
    }
  } else if (isSeq(node)) {
    for (const item of node.items) markSmallFlow(item as YamlNode);
  }
}

// Prints a value as a new YAML text in the project's style (for exports and new pipelines).
export function printValues(values: unknown[], leadingComment?: string): string {
  let bundle: Bundle = { text: '', docs: [], problems: [] };
  for (const v of values) bundle = appendDocument(bundle, v);
  const comment = leadingComment
    ? leadingComment
        .split('\n')
        .map((l) => (l ? `# ${l}` : '#'))
        .join('\n') + '\n'
    : '';
  return comment + bundle.text;
}

// The 1-based line range [first, last] of each document of the bundle's text.
export function documentLines(bundle: Bundle): [number, number][] {
  return bundle.docs.map((d, i) => {
    const next = bundle.docs[i + 1];
    const lastLine = next ? next.firstLine - 1 : Math.max(d.firstLine, bundle.text.split('\n').length);
    return [d.firstLine, lastLine];
  });
}
