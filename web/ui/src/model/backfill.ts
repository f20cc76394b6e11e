// What a backfill of [from, to] would create (issue #26 §3): the schedule's ticks in the
// window, counted before anything is asked of the server, so the dialog says how many runs it
// starts. Times are UTC (the server's time base); the inputs are datetime-local strings.
import { nextTicks } from './cron';
import type { Key, Params } from '../i18n/t';

// `error`: why there is no count, as a message key of i18n/en.ts and its parameters (the dialog
// says it in the language chosen).
export interface BackfillPreview {
  ticks: number; // at most `limit`; more when `more` is set
  more: boolean;
  first: Date | null;
  last: Date | null;
  error: { key: Key; params?: Params } | null;
}

// "2026-01-01T00:00" (an <input type=datetime-local>) read as UTC; null when not a time.
export function utcInput(value: string): Date | null {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value)) return null;
  const d = new Date(value + 'Z');
  return Number.isNaN(d.getTime()) ? null : d;
}

export function previewBackfill(cron: string, timezone: string, from: string, to: string, limit = 10000): BackfillPreview {
  const f = utcInput(from);
  const t = utcInput(to);
  if (!f || !t) return { ticks: 0, more: false, first: null, last: null, error: { key: 'backfill.bothEnds' } };
  if (t < f) return { ticks: 0, more: false, first: null, last: null, error: { key: 'backfill.endBeforeStart' } };
  const r = nextTicks(cron, timezone, { from: f, end: t.toISOString(), count: limit + 1 });
  if (r.error) return { ticks: 0, more: false, first: null, last: null, error: { key: 'backfill.scheduleProblem', params: { problem: r.error } } };
  const more = r.ticks.length > limit;
  const ticks = r.ticks.slice(0, limit);
  return { ticks: ticks.length, more, first: ticks[0] ?? null, last: ticks[ticks.length - 1] ?? null, error: null };
}
