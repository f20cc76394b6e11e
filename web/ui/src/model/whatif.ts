// The what-if page's comparison, without React: deltas of B against A, the rows of the services
// table, and the ECharts options of the services' charts (replicas, p99 latency, request rate
// over time). test/whatif.test.ts covers it on a small fixture.

import { t as tr, type T } from '../i18n/t';
import { kFont } from './chartTheme';
import { estimate, welch } from './stats';
import type { PredictorResult, ServiceResult, ServiceSeries, SimulationResult, SimulationSeries } from '../api/types';

export type Key = 'A' | 'B';
export const kColors: Record<Key, string> = { A: '#4f46e5', B: '#f59e0b' };
// Lighter shades of the two, for replicas still starting.
const kLight: Record<Key, string> = { A: '#a5a0f3', B: '#f9c56b' };
const kSloColor = '#dc3545';
const kLoadColor = '#94a3b8';
const kAxis = '#7a8499';
const kSplit = '#eef1f6';

// ---- numbers as the comparison shows them ----

// A latency: "850 ms", "1.25 s", "5 s", "14.5 s", "163 s", "12 min".
export function fmtLatency(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 10) return `${Number(s.toFixed(2))} s`;
  if (s < 100) return `${Number(s.toFixed(1))} s`;
  if (s < 600) return `${Math.round(s)} s`;
  return `${Math.round(s / 60)} min`;
}

export const fmtCount = (x: number) => Math.round(x).toLocaleString('en-US');
export const fmtShare = (x: number) => `${(x * 100).toFixed(1)}%`;
export const fmtGpuHours = (x: number) => (x >= 1000 ? fmtCount(x) : x.toFixed(1));

// ---- B against A ----

export type Better = 'lower' | 'higher' | 'none';
export interface Delta {
  text: string;
  tone: 'good' | 'bad' | '';
}

// B against A: relative ("+12.5%", "×3.4" from twice A up, "-18.0%"), or in percentage points
// for shares ("-9.9 pp"). From A = 0 the difference itself ("+5"). Green when better by more than
// half a percent (0.05 points for shares), red when worse; `none`: never coloured.
export function delta(a: number | null | undefined, b: number | null | undefined, better: Better, kind: 'rel' | 'pp' = 'rel', fmt: (x: number) => string = fmtCount): Delta | null {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  const tone = (d: number, eps: number): Delta['tone'] => (better === 'none' || Math.abs(d) <= eps ? '' : (d < 0) === (better === 'lower') ? 'good' : 'bad');
  if (kind === 'pp') {
    const d = (b - a) * 100;
    return { text: `${d > 0 ? '+' : ''}${d.toFixed(1)} pp`, tone: tone(d, 0.05) };
  }
  if (a === 0) {
    if (b === 0) return { text: '', tone: '' };
    return { text: `${b > 0 ? '+' : '-'}${fmt(Math.abs(b))}`, tone: tone(b, 0) };
  }
  const d = (b - a) / Math.abs(a);
  const text = a > 0 && d >= 1 ? `×${(b / a).toFixed(b / a >= 10 ? 0 : 1)}` : `${d > 0 ? '+' : ''}${(d * 100).toFixed(1)}%`;
  return { text, tone: tone(d, 0.005) };
}

// ---- B against A over several seeds ----

export interface SeedsRow {
  a: string; // "42.0 s ± 3.1 s" (several seeds), "42.0 s" (one), "—" (none)
  b: string;
  delta: string; // B against A of the means, as delta() writes it
  tone: Delta['tone']; // coloured only when Welch's 95 % interval of the difference excludes 0
  title: string; // the interval in words
}

// One row of the comparison table from the values of each side's seeds.
export function compareSeeds(aValues: (number | null | undefined)[], bValues: (number | null | undefined)[], better: Better, fmt: (x: number) => string, kind: 'rel' | 'pp' = 'rel'): SeedsRow {
  const ea = estimate(aValues);
  const eb = estimate(bValues);
  const cell = (e: ReturnType<typeof estimate>) => (!e ? '—' : e.half === null ? fmt(e.mean) : `${fmt(e.mean)} ± ${fmt(e.half)}`);
  const row: SeedsRow = { a: cell(ea), b: cell(eb), delta: '', tone: '', title: '' };
  if (!ea || !eb || (ea.mean === 0 && kind === 'rel')) return row;
  row.delta = delta(ea.mean, eb.mean, better, kind, fmt)?.text ?? '';
  const d = welch(aValues, bValues);
  const signed = (x: number) => `${x < 0 ? '-' : '+'}${fmt(Math.abs(x))}`;
  if (!d) {
    row.title = 'One seed on a side: no interval, so no colour (run several seeds to judge the difference).';
    return row;
  }
  const interval = `B - A = ${signed(d.diff)}, 95 % interval ${signed(d.diff - d.half)} to ${signed(d.diff + d.half)} (Welch, ${ea.n} and ${eb.n} seeds)`;
  if (!d.significant || better === 'none') {
    row.title = `${interval}: includes 0, the seeds' spread explains the difference.`;
    return row;
  }
  row.tone = (d.diff < 0) === (better === 'lower') ? 'good' : 'bad';
  row.title = `${interval}: excludes 0.`;
  return row;
}

// ---- what a result has ----

export const hasJobs = (r: SimulationResult | null | undefined) => !!r && !r.policies && (r.jobs?.total ?? 0) > 0;
export const hasServices = (r: SimulationResult | null | undefined) => !!r?.services?.length;

// ---- the services table ----

export interface CompareRow {
  id: string;
  label: string;
  kind: 'metric' | 'predictor' | 'predictor-metric';
  a: string;
  b: string;
  delta: Delta | null;
  title?: string; // over several seeds: the interval of the difference in words
}

export interface ServiceBlock {
  name: string;
  slo: string; // "p99 within 5.00 s", "A: p99 within 5.00 s · B: none", "no SLO"
  only: Key | null; // the service exists in one variant only
  rows: CompareRow[];
  // At a glance: the deltas of GPU-hours, share within the SLO, p99 and cold starts.
  headline: { label: string; delta: Delta }[];
}

type Metric<T> = { id: string; label: string; get: (x: T) => number | null | undefined; fmt: (x: number) => string; better: Better; kind?: 'rel' | 'pp' };

const kServiceMetrics: Metric<ServiceResult>[] = [
  { id: 'requests', label: 'Requests', get: (s) => s.requests, fmt: fmtCount, better: 'none' },
  { id: 'p50', label: 'Latency p50', get: (s) => s.p50_s, fmt: fmtLatency, better: 'lower' },
  { id: 'p99', label: 'Latency p99', get: (s) => s.p99_s, fmt: fmtLatency, better: 'lower' },
  { id: 'slo', label: 'Within SLO', get: (s) => (s.slo_p99_s === null ? null : s.slo_attainment), fmt: fmtShare, better: 'higher', kind: 'pp' },
  { id: 'gpu_hours', label: 'GPU-hours', get: (s) => s.gpu_hours, fmt: fmtGpuHours, better: 'lower' },
  { id: 'cold_starts', label: 'Cold starts', get: (s) => s.cold_starts, fmt: fmtCount, better: 'lower' },
  { id: 'cold_start_p50', label: 'Cold start, median', get: (s) => s.cold_start_p50_s, fmt: fmtLatency, better: 'lower' },
  { id: 'max_replicas', label: 'Most replicas', get: (s) => s.max_replicas, fmt: fmtCount, better: 'none' },
  { id: 'unserved', label: 'Unserved requests', get: (s) => s.unserved, fmt: fmtCount, better: 'lower' },
];

const kPredictorMetrics: Metric<PredictorResult>[] = [
  { id: 'requests', label: 'Requests', get: (p) => p.requests, fmt: fmtCount, better: 'none' },
  { id: 'p99', label: 'Latency p99', get: (p) => p.p99_s, fmt: fmtLatency, better: 'lower' },
  { id: 'cold_starts', label: 'Cold starts', get: (p) => p.cold_starts, fmt: fmtCount, better: 'lower' },
  { id: 'max_replicas', label: 'Most replicas', get: (p) => p.max_replicas, fmt: fmtCount, better: 'none' },
];

function metricRow<T>(m: Metric<T>, a: T | undefined, b: T | undefined, idPrefix: string, kind: CompareRow['kind'], empty: (x: T | undefined) => string): CompareRow {
  const va = a === undefined ? undefined : m.get(a);
  const vb = b === undefined ? undefined : m.get(b);
  const show = (x: T | undefined, v: number | null | undefined) => (v === null || v === undefined ? empty(x) : m.fmt(v));
  return { id: `${idPrefix}${m.id}`, label: m.label, kind, a: show(a, va), b: show(b, vb), delta: delta(va, vb, m.better, m.kind, m.fmt) };
}

// The names of a, then those of b not in a, each once.
function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

const sloText = (s: ServiceResult | undefined) => (!s ? '' : s.slo_p99_s === null ? 'none' : `p99 within ${fmtLatency(s.slo_p99_s)}`);

// One block per service of A or B (A's order, then B's others), matched by name. With
// `seeds` (every seed's result of each side, the first being ra and rb), a service's figures are
// means ± 95 % intervals over the seeds and B against A is coloured only when Welch's interval
// excludes 0 (compareSeeds), never with one seed a side; without, the figures of ra and rb.
export function serviceBlocks(ra: SimulationResult | null | undefined, rb: SimulationResult | null | undefined, seeds?: { a: SimulationResult[]; b: SimulationResult[] }): ServiceBlock[] {
  const sa = ra?.services ?? [];
  const sb = rb?.services ?? [];
  return union(
    sa.map((s) => s.name),
    sb.map((s) => s.name),
  ).map((name) => {
    const a = sa.find((s) => s.name === name);
    const b = sb.find((s) => s.name === name);
    const only: Key | null = a && !b ? 'A' : b && !a ? 'B' : null;
    const rows: CompareRow[] = [];
    for (const m of kServiceMetrics) {
      const row = metricRow(m, a, b, '', 'metric', (x) => (x === undefined ? '—' : m.id === 'slo' ? 'no SLO' : m.id === 'cold_start_p50' ? 'none' : '—'));
      if (seeds) {
        const values = (all: SimulationResult[]) =>
          all.map((r) => {
            const s = r.services?.find((x) => x.name === name);
            return s === undefined ? undefined : m.get(s);
          });
        const sr = compareSeeds(values(seeds.a), values(seeds.b), m.better, m.fmt, m.kind);
        if (sr.a !== '—') row.a = sr.a;
        if (sr.b !== '—') row.b = sr.b;
        row.delta = row.delta && { text: sr.delta, tone: sr.tone };
        row.title = sr.title;
      }
      // Unserved requests only when there are some; the median cold start only when there was one.
      if (m.id === 'unserved' && !(a?.unserved || b?.unserved)) continue;
      if (m.id === 'cold_start_p50' && a?.cold_start_p50_s == null && b?.cold_start_p50_s == null) continue;
      if (m.id === 'slo' && a?.slo_p99_s == null && b?.slo_p99_s == null) continue;
      rows.push(row);
    }
    // Predictors as sub-rows when either side has more than one.
    const pa = a?.predictors ?? [];
    const pb = b?.predictors ?? [];
    if (pa.length > 1 || pb.length > 1) {
      for (const pn of union(
        pa.map((p) => p.name),
        pb.map((p) => p.name),
      )) {
        const x = pa.find((p) => p.name === pn);
        const y = pb.find((p) => p.name === pn);
        const traffic = (p: PredictorResult | undefined) => (p ? `${p.traffic_percent}% of traffic` : '—');
        rows.push({ id: `${pn}.`, label: `Predictor ${pn}`, kind: 'predictor', a: traffic(x), b: traffic(y), delta: null });
        for (const m of kPredictorMetrics) rows.push(metricRow(m, x, y, `${pn}.`, 'predictor-metric', () => '—'));
      }
    }
    const slo = a && b && sloText(a) !== sloText(b) ? `A: ${sloText(a)} · B: ${sloText(b)}` : a?.slo_p99_s != null || b?.slo_p99_s != null ? sloText(a ?? b) : 'no SLO';
    const headline: ServiceBlock['headline'] = [];
    if (!only)
      for (const [id, label] of [
        ['gpu_hours', 'GPU-hours'],
        ['slo', 'within SLO'],
        ['p99', 'p99'],
        ['cold_starts', 'cold starts'],
      ]) {
        const d = rows.find((r) => r.id === id)?.delta;
        if (d && d.text) headline.push({ label, delta: d });
      }
    return { name, slo, only, rows, headline };
  });
}

// The cluster's GPU figures, for the table of a comparison that has no jobs. Not coloured: for
// services more allocated GPUs is more cost, not better use.
export function clusterRows(ra: SimulationResult | null | undefined, rb: SimulationResult | null | undefined): CompareRow[] {
  const ms: Metric<SimulationResult>[] = [
    { id: 'gpu_alloc', label: 'GPU allocation', get: (r) => r.gpu?.allocation_ratio, fmt: fmtShare, better: 'none' },
    { id: 'gpu_busy', label: 'GPU busy', get: (r) => r.gpu?.busy_ratio, fmt: fmtShare, better: 'none' },
  ];
  return ms.map((m) => metricRow(m, ra ?? undefined, rb ?? undefined, 'cluster.', 'metric', () => '—'));
}

// "code: 554,878 requests · p99 163 s · 93.3% within 5.00 s · 71.2 GPU-hours" (a variant's card).
export function serviceSummary(s: ServiceResult, t: T = tr): string {
  const parts = [t('whatif.svcRequests', { count: Math.round(s.requests) }), `p99 ${fmtLatency(s.p99_s)}`];
  if (s.slo_p99_s !== null) parts.push(t('whatif.svcWithin', { share: fmtShare(s.slo_attainment), slo: fmtLatency(s.slo_p99_s) }));
  parts.push(t('whatif.svcGpuHours', { hours: fmtGpuHours(s.gpu_hours) }));
  return `${s.name}: ${parts.join(' · ')}`;
}

// ---- charts ----

export function baseOption() {
  return {
    animation: false,
    textStyle: { fontFamily: kFont },
    grid: { left: 8, right: 20, top: 36, bottom: 30, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
    legend: { top: 0, right: 0, textStyle: { color: '#4a5468' }, icon: 'roundRect', itemHeight: 4, itemWidth: 16 },
    tooltip: { trigger: 'axis' },
  };
}

// A variant's input to the services' charts: its result (for the start, the end and the SLO)
// and its series.
export interface ChartInput {
  key: Key;
  result: SimulationResult | null | undefined;
  series: SimulationSeries | null | undefined;
}

// Hours from `start` (the result's start, else the first point).
export function toHours<T>(points: [string, T][], start?: string): [number, T][] {
  if (!points.length) return [];
  const t0 = Date.parse(start ?? points[0][0]);
  return points.map(([t, y]) => [Math.round(((Date.parse(t) - t0) / 3600e3) * 1e6) / 1e6, y]);
}

function horizonHours(inputs: ChartInput[]): number | undefined {
  const hs = inputs.map((v) => (v.result?.start && v.result?.end ? (Date.parse(v.result.end) - Date.parse(v.result.start)) / 3600e3 : undefined)).filter((h): h is number => h !== undefined);
  return hs.length ? Math.max(...hs) : undefined;
}

const serviceOf = (v: ChartInput, name: string): ServiceSeries | undefined => v.series?.services?.find((s) => s.name === name);

function hoursAxis(max: number | undefined) {
  return { type: 'value', min: 0, max, name: 'hours since start', nameLocation: 'middle', nameGap: 24, axisLabel: { color: kAxis }, splitLine: { show: false } };
}

// Replicas ready (solid) and starting (lighter, dashed) of one service, A against B.
export function replicasOption(name: string, inputs: ChartInput[]) {
  const series: object[] = [];
  for (const v of inputs) {
    const s = serviceOf(v, name);
    if (!s) continue;
    series.push({ name: `${v.key} ready`, type: 'line', showSymbol: false, lineStyle: { width: 2, color: kColors[v.key] }, itemStyle: { color: kColors[v.key] }, data: toHours(s.ready, v.result?.start) });
    series.push({ name: `${v.key} starting`, type: 'line', showSymbol: false, lineStyle: { width: 1.5, type: 'dashed', color: kLight[v.key] }, itemStyle: { color: kLight[v.key] }, data: toHours(s.starting, v.result?.start) });
  }
  return {
    ...baseOption(),
    tooltip: { trigger: 'axis', valueFormatter: (y: number) => (typeof y === 'number' ? y.toFixed(1) : '—') },
    xAxis: hoursAxis(horizonHours(inputs)),
    yAxis: { type: 'value', min: 0, name: 'replicas', nameTextStyle: { color: kAxis }, axisLabel: { color: kAxis }, splitLine: { lineStyle: { color: kSplit } } },
    series,
  };
}

// The SLO of a service in a variant (null: none, or not in that variant).
const sloOf = (v: ChartInput, name: string) => v.result?.services?.find((s) => s.name === name)?.slo_p99_s ?? null;

// p99 latency per report interval, A against B; gaps where nothing was served; the SLO as a
// horizontal line (one per variant when they differ). A log axis when the values span more
// than thirty-fold (a cold start's minutes against a warm service's second).
export function p99Option(name: string, inputs: ChartInput[]) {
  const series: object[] = [];
  const values: number[] = [];
  const hmax = horizonHours(inputs);
  let xmax = hmax ?? 0;
  for (const v of inputs) {
    const s = serviceOf(v, name);
    if (!s) continue;
    const data = toHours(s.p99, v.result?.start);
    for (const [x, y] of data) {
      if (y !== null) values.push(y);
      xmax = Math.max(xmax, x);
    }
    // A point between two gaps draws no line: with gaps, every point gets a dot.
    const gaps = data.some(([, y]) => y === null);
    series.push({ name: `${v.key} p99`, type: 'line', showSymbol: gaps, symbol: 'circle', symbolSize: 4, connectNulls: false, lineStyle: { width: 2, color: kColors[v.key] }, itemStyle: { color: kColors[v.key] }, data });
  }
  const slos = inputs.map((v) => ({ key: v.key, slo: sloOf(v, name) })).filter((x): x is { key: Key; slo: number } => x.slo !== null);
  const distinct = slos.filter((x, i) => slos.findIndex((y) => y.slo === x.slo) === i);
  for (const { key, slo } of distinct) {
    values.push(slo);
    series.push({
      name: distinct.length > 1 ? `${key} SLO ${fmtLatency(slo)}` : `SLO ${fmtLatency(slo)}`,
      type: 'line',
      showSymbol: false,
      lineStyle: { width: 1.5, type: 'dashed', color: distinct.length > 1 ? kColors[key] : kSloColor },
      itemStyle: { color: distinct.length > 1 ? kColors[key] : kSloColor },
      tooltip: { show: false },
      data: [
        [0, slo],
        [xmax, slo],
      ],
    });
  }
  const lo = values.length ? Math.min(...values) : 1;
  const hi = values.length ? Math.max(...values) : 1;
  const log = lo > 0 && hi / lo > 30;
  return {
    ...baseOption(),
    tooltip: { trigger: 'axis', valueFormatter: (y: number | null) => (typeof y === 'number' ? fmtLatency(y) : 'nothing served') },
    xAxis: hoursAxis(hmax),
    yAxis: {
      type: log ? 'log' : 'value',
      ...(log ? { logBase: 10 } : { min: 0 }),
      name: 'p99 latency',
      nameTextStyle: { color: kAxis },
      axisLabel: { color: kAxis, formatter: (y: number) => (log && y >= 1 ? `${fmtCount(y)} s` : fmtLatency(y)) },
      splitLine: { lineStyle: { color: kSplit } },
    },
    series,
  };
}

// Request rate: one grey area when A and B saw the same load (the same trace), else A against B.
export function qpsOption(name: string, inputs: ChartInput[]) {
  const withData = inputs.map((v) => ({ v, s: serviceOf(v, name) })).filter((x): x is { v: ChartInput; s: ServiceSeries } => !!x.s);
  const same = withData.length === 2 && sameLoad(withData[0].s.qps, withData[1].s.qps);
  const series = (same ? withData.slice(0, 1) : withData).map(({ v, s }) => ({
    name: same ? 'requests/s (A and B)' : `${v.key} requests/s`,
    type: 'line',
    showSymbol: false,
    areaStyle: { opacity: same ? 0.18 : 0.06 },
    lineStyle: { width: same ? 1.5 : 2, color: same ? kLoadColor : kColors[v.key] },
    itemStyle: { color: same ? kLoadColor : kColors[v.key] },
    data: toHours(s.qps, v.result?.start),
  }));
  return {
    ...baseOption(),
    tooltip: { trigger: 'axis', valueFormatter: (y: number) => (typeof y === 'number' ? `${y.toFixed(y < 10 ? 2 : 1)} req/s` : '—') },
    xAxis: hoursAxis(horizonHours(inputs)),
    yAxis: { type: 'value', min: 0, name: 'requests/s', nameTextStyle: { color: kAxis }, axisLabel: { color: kAxis }, splitLine: { lineStyle: { color: kSplit } } },
    series,
  };
}

// The same load: the same times and rates within a thousandth.
export function sameLoad(a: [string, number][], b: [string, number][]): boolean {
  return a.length === b.length && a.every(([t, y], i) => t === b[i][0] && Math.abs(y - b[i][1]) <= 1e-3 * Math.max(1, Math.abs(y)));
}

// The names of the services of either variant's series or result, A's first.
export function serviceNames(inputs: ChartInput[]): string[] {
  let names: string[] = [];
  for (const v of inputs) names = union(names, [...(v.result?.services ?? []).map((s) => s.name), ...(v.series?.services ?? []).map((s) => s.name)]);
  return names;
}

// GPU allocation over time. The server sends a point per change: the value holds until the
// next one (0 before the first), the last one until the end of the horizon. A service that
// scales up and down every minute gives thousands of changes, so the chart shows the
// time-weighted average of `buckets` equal slices of the horizon, each at its middle. Without
// the horizon's end, the points as they are.
export function allocationData(points: [string, number][], start?: string, end?: string, buckets = 144): [number, number][] {
  if (!points.length || !end) return toHours(points, start);
  const t0 = Date.parse(start ?? points[0][0]);
  const data = points.map(([t, y]) => [(Date.parse(t) - t0) / 3600e3, y]);
  const hend = (Date.parse(end) - t0) / 3600e3;
  if (!(hend > 0)) return toHours(points, start);
  const width = hend / buckets;
  const out: [number, number][] = [];
  let i = 0; // the first change after the current position
  let value = 0;
  for (let k = 0; k < buckets; k++) {
    const lo = k * width;
    const hi = lo + width;
    let t = lo;
    let area = 0;
    while (i < data.length && data[i][0] <= lo) value = data[i++][1];
    while (i < data.length && data[i][0] < hi) {
      area += value * (data[i][0] - t);
      t = data[i][0];
      value = data[i++][1];
    }
    area += value * (hi - t);
    out.push([Math.round((lo + width / 2) * 1e6) / 1e6, area / width]);
  }
  return out;
}
