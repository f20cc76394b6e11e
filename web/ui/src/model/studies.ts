// The what-if page's sweeps and capacity plans, without React: what the server's answers mean
// to the page (routes, progress, a catalog entry's one-line summary, errors as the CLI prints
// them) and the SVG charts as images. test/studies.test.ts covers it.

import type { ApiErrorBody, Study, StudyChart, StudyFile, StudyKind } from '../api/types';
import { t as tr, type T } from '../i18n/t';

// The API's collection of each kind: /sweeps, /plans.
export const studyPath = (kind: StudyKind) => (kind === 'Sweep' ? '/sweeps' : '/plans');
// The POST body's key naming a shipped file: {"sweepName": ...}, {"planName": ...}.
export const studyNameKey = (kind: StudyKind) => (kind === 'Sweep' ? 'sweepName' : 'planName');
// The event bus's type of each kind's progress events.
export const studyEvent = (kind: StudyKind) => (kind === 'Sweep' ? 'sweep' : 'plan');

export const studyInProgress = (s: Study | null | undefined) => s?.state === 'queued' || s?.state === 'running';

// A catalog entry in a line: "27 points × 5 seeds = 135 runs · varies placement, load, nodes",
// "pools hgx-h100, dgx-a100 · growth 1×, 1.25×, 1.5×". Empty for a file that cannot run.
export function studySummary(f: StudyFile, t: T = tr): string {
  if (f.error) return '';
  const parts: string[] = [];
  if (f.kind === 'Sweep') {
    if (f.points !== undefined && f.seeds !== undefined && f.runs !== undefined)
      parts.push(t('studies.sumGrid', { points: t('studies.sumPoints', { count: f.points }), seeds: t('studies.sumSeeds', { count: f.seeds }), runs: t('studies.sumRuns', { count: f.runs }) }));
    if (f.axes?.length) parts.push(t('studies.sumVaries', { axes: f.axes.join(', ') }));
  } else {
    if (f.pools?.length) parts.push(t('studies.sumPools', { count: f.pools.length, pools: f.pools.join(', ') }));
    if (f.growth?.length) parts.push(t('studies.sumGrowth', { growth: f.growth.map((g) => `${g}×`).join(', ') }));
  }
  if (f.base) parts.push(t('studies.sumBase', { base: f.base }));
  return parts.join(' · ');
}

// What the progress bar says, in the translator's language: "Waiting for the sweep worker…",
// "Run 12 of 135", "Forecast step 2 of 3". Runs and steps count from what is done: the one
// under way is done + 1. An ended one says its state.
export function studyProgressText(s: Study, t: T): string {
  if (s.state === 'queued') return t(s.kind === 'Sweep' ? 'studies.waitingSweep' : 'studies.waitingPlan');
  if (s.state !== 'running') return t(`state.${s.state}`);
  const current = Math.min(s.done + 1, s.total).toLocaleString('en-US');
  const total = s.total.toLocaleString('en-US');
  return t(s.kind === 'Sweep' ? 'studies.runOf' : 'studies.stepOf', { current, total });
}

// A cancelled one: "Cancelled after 12 of 135 runs: nothing to report."
export function studyCancelledText(s: Study, t: T): string {
  const params = { done: s.done.toLocaleString('en-US'), count: s.total };
  return t(s.kind === 'Sweep' ? 'studies.cancelledRuns' : 'studies.cancelledSteps', params);
}

// The fraction done, 0..1, whatever the server sent (a total of 0 is no progress).
export function studyFraction(s: Study): number {
  if (s.state === 'done') return 1;
  if (!s.total) return 0;
  return Math.max(0, Math.min(1, s.done / s.total));
}

// A refused request as the CLI says it: one line per validation error,
// "sweeps/typo.yaml:10:23: spec.axes[0].values[1]: 'binpak' ...", else the message.
export function studyErrorLines(message: string, body: ApiErrorBody | null | undefined): string[] {
  const errors = body?.errors;
  if (!errors?.length) return [body?.error?.message ?? message];
  return errors.map((e) => {
    const where = [e.file, e.line, e.column].filter((x) => x !== undefined && x !== '').join(':');
    return [where, e.path, e.message].filter((x) => x).join(': ');
  });
}

// A chart as an image source. The SVG is Gantry's own, but it is shown as an <img> of a data URL
// all the same: an image's scripts never run and it cannot reach the page.
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

// "wait.p95.svg" → "wait.p95"; "frontier.svg" → "frontier".
export const chartTitle = (c: StudyChart) => c.name.replace(/\.svg$/, '');

// A Study from the server's JSON, or null when it is not one (a proxy's error page, an older
// server): the page then says so instead of drawing nonsense.
export function parseStudy(x: unknown): Study | null {
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  const states = ['queued', 'running', 'done', 'failed', 'cancelled'];
  if (typeof o.id !== 'string' || (o.kind !== 'Sweep' && o.kind !== 'Plan') || typeof o.state !== 'string' || !states.includes(o.state)) return null;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const charts = Array.isArray(o.charts) ? (o.charts as unknown[]).filter((c): c is StudyChart => !!c && typeof (c as StudyChart).name === 'string' && typeof (c as StudyChart).svg === 'string') : null;
  return {
    id: o.id,
    kind: o.kind,
    name: typeof o.name === 'string' ? o.name : o.id,
    file: typeof o.file === 'string' ? o.file : '',
    state: o.state as Study['state'],
    done: num(o.done),
    total: num(o.total),
    progress: num(o.progress),
    created: typeof o.created === 'string' ? o.created : '',
    error: typeof o.error === 'string' ? o.error : null,
    result: o.result && typeof o.result === 'object' ? (o.result as Record<string, unknown>) : null,
    report: typeof o.report === 'string' ? o.report : null,
    charts,
  };
}

// A progress event applied to the study shown: only the same id, and never back from a final
// state (an event can arrive after the poll that saw the end).
export function applyStudyEvent(shown: Study | null, event: unknown): Study | null {
  const e = parseStudy(event);
  if (!shown || !e || e.id !== shown.id || !studyInProgress(shown)) return shown;
  return { ...shown, state: e.state, done: e.done, total: e.total, progress: e.progress, error: e.error };
}

// Sweeps and plans together, the newest first: by creation time, then by id number for two made
// in the same millisecond.
export function newestFirst(list: Study[]): Study[] {
  const t = (s: Study) => Date.parse(s.created) || 0;
  const n = (s: Study) => Number(s.id.replace(/^\D+-/, '')) || 0;
  return [...list].sort((a, b) => t(b) - t(a) || n(b) - n(a));
}
