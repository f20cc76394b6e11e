// The what-if page's "Sweeps on Kubernetes", without React: what the server's distributed sweeps
// (web/API.md, "Distributed sweeps") mean to the page — parsing, the list kept up to date from
// `distributed-sweep` events, progress, what cancelling does, and the sweep as a Study so that
// its report and charts are drawn by the same components as the served sweeps.
// test/distributedSweeps.test.ts covers it.

import type { DistributedSweep, ShardFailure, Study, StudyChart } from '../api/types';
import { t as tr, type T } from '../i18n/t';

const kStates = ['running', 'done', 'cancelled'];

// A DistributedSweep from the server's JSON (an answer or an event), or null when it is not
// one (a proxy's error page, an older server).
export function parseDistributedSweep(x: unknown): DistributedSweep | null {
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  if (typeof o.id !== 'string' || typeof o.state !== 'string' || !kStates.includes(o.state)) return null;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const runs = (o.runs && typeof o.runs === 'object' ? o.runs : {}) as Record<string, unknown>;
  const failures: ShardFailure[] = Array.isArray(o.failures)
    ? (o.failures as unknown[])
        .filter((f): f is Record<string, unknown> => !!f && typeof f === 'object')
        .map((f) => ({ shard: num(f.shard), at: str(f.at), message: typeof f.message === 'string' ? f.message : '' }))
    : [];
  const charts = Array.isArray(o.charts) ? (o.charts as unknown[]).filter((c): c is StudyChart => !!c && typeof (c as StudyChart).name === 'string' && typeof (c as StudyChart).svg === 'string') : null;
  return {
    id: o.id,
    name: typeof o.name === 'string' && o.name ? o.name : o.id,
    file: typeof o.file === 'string' ? o.file : '',
    state: o.state as DistributedSweep['state'],
    shards: num(o.shards),
    runs: { done: num(runs.done), total: num(runs.total) },
    created: str(o.created),
    ended: str(o.ended),
    failures,
    result: o.result && typeof o.result === 'object' ? (o.result as Record<string, unknown>) : null,
    report: typeof o.report === 'string' ? o.report : null,
    charts,
    partial: o.partial && typeof o.partial === 'object' ? parsePartial(o.partial as Record<string, unknown>) : null,
  };
}

function parsePartial(p: Record<string, unknown>): DistributedSweep['partial'] {
  return { result: p.result && typeof p.result === 'object' ? (p.result as Record<string, unknown>) : null, report: typeof p.report === 'string' ? p.report : null };
}

// The list as the server keeps it: newest first, by the number in the id ("sw-12-k3x9qa").
export function sweepNumber(id: string): number {
  const m = /^sw-(\d+)-/.exec(id);
  return m ? Number(m[1]) : 0;
}
export const newestSweepsFirst = (list: DistributedSweep[]) => [...list].sort((a, b) => sweepNumber(b.id) - sweepNumber(a.id));

// An event applied to the list: a new sweep is added, a known one updated. Never back from a
// final state (an event can arrive after the answer that saw the end), and the result, report
// and charts of a done sweep are kept (events carry none). Returns the same array when the
// event changes nothing, so the page does not render again.
export function applyDistributedSweepEvent(list: DistributedSweep[] | undefined, event: unknown): DistributedSweep[] | undefined {
  const e = parseDistributedSweep(event);
  if (!e) return list;
  const all = list ?? [];
  const at = all.findIndex((s) => s.id === e.id);
  if (at < 0) return newestSweepsFirst([...all, e]);
  const old = all[at];
  if (old.state !== 'running' && e.state === 'running') return list;
  const next: DistributedSweep = { ...e, result: old.result, report: old.report, charts: old.charts, partial: old.partial };
  if (sameSweep(old, next)) return list;
  const out = [...all];
  out[at] = next;
  return out;
}

function sameSweep(a: DistributedSweep, b: DistributedSweep): boolean {
  return a.state === b.state && a.runs.done === b.runs.done && a.runs.total === b.runs.total && a.failures.length === b.failures.length && a.ended === b.ended && a.name === b.name;
}

// The fraction of runs done, 0..1 (a total of 0 is no progress; done is all of it).
export function sweepFraction(s: DistributedSweep): number {
  if (s.state === 'done') return 1;
  if (!s.runs.total) return 0;
  return Math.max(0, Math.min(1, s.runs.done / s.runs.total));
}

// "1,234 of 5,000 runs" ("1,234 / 5,000 次运行"), in the translator's language.
export const sweepRunsText = (s: DistributedSweep, t: T) => t('dsweeps.runsDone', { done: s.runs.done.toLocaleString('en-US'), count: s.runs.total });

// The head of a sweep's result: "30 of 135 runs in 4 shards".
export const sweepRunsInShardsText = (s: DistributedSweep, t: T) => t('dsweeps.inShards', { runs: sweepRunsText(s, t), count: s.shards });

// The sweep the page opens when the user has chosen none: the newest that is not cancelled
// (running: its figures fill in; done: its report).
export const defaultOpenSweep = (list: DistributedSweep[] | undefined) => list?.find((s) => s.state !== 'cancelled') ?? null;

// The detail fetched for `s` (GET /distributed-sweeps/{id}) still describes it: a done sweep
// needs the answer of a done one (with its report), a running one any answer.
export const detailIsCurrent = (s: DistributedSweep, detail: DistributedSweep | undefined) => !!detail && (s.state !== 'done' || detail.state === 'done');

// The StateBadge's colour of each state, with the state itself as its label.
export const sweepBadgeState = (s: DistributedSweep) => (s.state === 'done' ? 'succeeded' : s.state === 'cancelled' ? 'killed' : 'running');

// The shards that reported a failure, each once: "shard 3" or "shards 1, 3".
export function failedShardsText(s: DistributedSweep): string {
  const shards = [...new Set(s.failures.map((f) => f.shard))].sort((a, b) => a - b);
  if (!shards.length) return '';
  return `shard${shards.length === 1 ? '' : 's'} ${shards.join(', ')}`;
}

// What deletes the Job on the cluster: the server holds no cluster credentials, the user's
// `gantry sweep cancel` does (sim/PLANNING.md, "Sweeps on Kubernetes").
export const cancelCommand = (id: string) => `gantry sweep cancel ${id} --server ${serverOrigin()} --namespace NAMESPACE`;

function serverOrigin(): string {
  return typeof window !== 'undefined' && window.location?.origin ? window.location.origin : 'URL';
}

// The confirmation dialog's text, line by line, in the chosen language.
export function cancelDialogLines(s: DistributedSweep, t: T = tr): string[] {
  return [t('dsweeps.cancelLead', { name: s.name, runs: sweepRunsText(s, t), count: s.shards }), t('dsweeps.cancelCluster')];
}

// The sweep as a Study, for StudiesSection's report and charts: the same CLI document, text
// report and SVGs as a served sweep. A running one's figures so far are its report.
export function asStudy(s: DistributedSweep): Study {
  if (s.state === 'running' && s.partial) return { ...asDoneStudy(s), state: 'running', result: s.partial.result, report: s.partial.report, charts: null };
  return asDoneStudy(s);
}

function asDoneStudy(s: DistributedSweep): Study {
  const state: Study['state'] = s.state;
  return {
    id: s.id,
    kind: 'Sweep',
    name: s.name,
    file: s.file,
    state,
    done: s.runs.done,
    total: s.runs.total,
    progress: sweepFraction(s),
    created: s.created ?? '',
    error: null,
    result: s.result,
    report: s.report,
    charts: s.charts,
  };
}
