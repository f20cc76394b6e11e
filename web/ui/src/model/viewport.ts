// Where the editor's canvas looks (issue #26 §9): "fit" shows the whole graph only down to the
// zoom at which the smallest text of a task node is still 10 px on screen; a graph too large
// for that is shown from its start (top left, where a DAG begins) at that zoom, and the rest is
// reached by scrolling. Also the free spot where a template added from the keyboard goes.
// test/viewport.test.ts checks the arithmetic.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

// The smallest text in a task node (styles.css: .task-node .tpl and .pods, 10.5 px at zoom 1)
// and the zoom at which it is 10 px.
export const kSmallestNodeFontPx = 10.5;
export const kReadableZoom = 10 / kSmallestNodeFontPx;

// The viewport that shows `bounds` (flow coordinates) in a pane of width x height pixels with
// `pad` pixels around, zoomed to fit between minZoom and maxZoom. Each axis that fits is
// centred; an axis that does not (the zoom stopped at minZoom) starts at the graph's start.
export function readableFit(bounds: Rect, width: number, height: number, opts: { pad?: number; minZoom?: number; maxZoom?: number } = {}): Viewport {
  const pad = opts.pad ?? 40;
  const minZoom = opts.minZoom ?? kReadableZoom;
  const maxZoom = opts.maxZoom ?? 1.1;
  const fit = Math.min((width - 2 * pad) / Math.max(bounds.width, 1), (height - 2 * pad) / Math.max(bounds.height, 1));
  const zoom = Math.min(maxZoom, Math.max(minZoom, fit));
  const axis = (start: number, size: number, pane: number) => (size * zoom + 2 * pad <= pane ? pane / 2 - (start + size / 2) * zoom : pad - start * zoom);
  return { x: axis(bounds.x, bounds.width, width), y: axis(bounds.y, bounds.height, height), zoom };
}

// A place for a new node of w x h near `preferred` (its top-left corner) that overlaps none of
// `taken` (with `gap` between): `preferred` itself if free, else the first free place below it,
// one node height and gap at a time.
export function freeSpot(taken: Rect[], preferred: { x: number; y: number }, w: number, h: number, gap = 24): { x: number; y: number } {
  const overlaps = (x: number, y: number) => taken.some((r) => x < r.x + r.width + gap && x + w + gap > r.x && y < r.y + r.height + gap && y + h + gap > r.y);
  let y = preferred.y;
  for (let i = 0; i < 10000 && overlaps(preferred.x, y); ++i) y += h + gap;
  return { x: preferred.x, y };
}
