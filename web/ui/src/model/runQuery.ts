// Which runs the Runs page asks the server for (issue #26 leftovers): a state and a window of
// logical times, sent as `GET /pipelines/{name}/runs?state=&from=&to=` (web/API.md; both ends
// included) and kept in the page's address (#/runs/etl?state=failed&from=...&to=...), so that a
// reload or a shared link shows the same runs. Times are typed and shown in the page's time
// base, UTC (format.ts), and sent as RFC 3339. test/runQuery.test.ts covers it.

import type { Run, RunState } from '../api/types';
import type { Key, Params } from '../i18n/t';

export const kRunStates: RunState[] = ['running', 'queued', 'failed', 'succeeded', 'killed', 'skipped', 'expired'];

// from / to: RFC 3339 in UTC ("2026-01-01T03:00:00Z"), or '' for no bound.
export interface RunQuery {
  state: RunState | '';
  from: string;
  to: string;
}

export const kAllRuns: RunQuery = { state: '', from: '', to: '' };

export const isRunQueryFiltered = (q: RunQuery) => !!(q.state || q.from || q.to);

// A refusal of the form: the field it concerns and a message key of i18n/en.ts.
export interface RangeProblem {
  field: 'from' | 'to';
  key: Key;
  params: Params;
}

export type RangeCheck = { ok: true; from: string; to: string } | ({ ok: false } & RangeProblem);

const kTimeInput = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d\d:\d\d)?$/i;

// A time as typed, read in UTC: "2026-01-01", "2026-01-01 03:00", "2026-01-01T03:00:00Z",
// "2026-01-01T11:00:00+08:00" (an explicit offset is honoured). A date alone is the start of
// that day for `from` and its last microsecond for `to`, so that "to 2026-01-02" includes the
// whole day. Returns the RFC 3339 form in UTC and its microseconds since the epoch, or null when
// the text is not such a time or names a day or hour that does not exist (2026-02-30, 24:00).
export function readTimeInput(text: string, end: 'from' | 'to'): { time: string; micros: number } | null {
  const m = kTimeInput.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const dateOnly = h === undefined;
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
  const [year, month, day, hour, minute, second] = [n(y), n(mo), n(d), n(h), n(mi), n(s)];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return null; // 2026-02-30 rolls over: not a day
  let offsetMin = 0;
  if (zone && /^[+-]/.test(zone)) {
    const [oh, om] = zone.slice(1).split(':').map(Number);
    if (oh > 23 || om > 59) return null;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  let micros = (ms - offsetMin * 60000) * 1000 + Number((frac ?? '').padEnd(6, '0').slice(0, 6));
  if (dateOnly && end === 'to') micros += 86400e6 - 1;
  return { time: rfc3339(micros), micros };
}

// "2026-01-01T03:00:00Z", with ".250000" when the instant has a fraction of a second.
function rfc3339(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const sub = micros - Math.floor(micros / 1e6) * 1e6;
  const base = new Date(ms).toISOString().slice(0, 19);
  return sub ? `${base}.${String(sub).padStart(6, '0')}Z` : `${base}Z`;
}

// What the form's inputs show for a bound of the address: "2026-01-01 03:00" (seconds when not
// zero), and the day alone for a `to` at a day's last microsecond (as "2026-01-02" reads).
export function timeInputText(time: string, end: 'from' | 'to'): string {
  const r = readTimeInput(time, end);
  if (!r) return time;
  if (end === 'to' && r.micros % 86400e6 === 86400e6 - 1) return r.time.slice(0, 10);
  const text = r.time.replace('T', ' ').replace(/Z$/, '');
  return text.endsWith(':00') ? text.slice(0, 16) : text;
}

// The form's two fields checked: each empty (no bound) or a time, and to not before from.
export function checkRangeForm(fromText: string, toText: string): RangeCheck {
  const from = fromText.trim() ? readTimeInput(fromText, 'from') : { time: '', micros: -Infinity };
  if (!from) return { ok: false, field: 'from', key: 'runs.rangeBadFrom', params: { text: fromText.trim() } };
  const to = toText.trim() ? readTimeInput(toText, 'to') : { time: '', micros: Infinity };
  if (!to) return { ok: false, field: 'to', key: 'runs.rangeBadTo', params: { text: toText.trim() } };
  if (to.micros < from.micros) return { ok: false, field: 'to', key: 'runs.rangeOrder', params: { from: fromText.trim(), to: toText.trim() } };
  return { ok: true, from: from.time, to: to.time };
}

// The query of an address. An unknown state is ignored (as on the Pipelines page); a bound that
// is not a time is not ignored but refused: the page shows the text in its field with the
// problem and asks the server nothing until it is fixed or reset.
export function runQueryFromAddress(address: URLSearchParams): { query: RunQuery; fromText: string; toText: string; problem: RangeProblem | null } {
  const state = address.get('state') ?? '';
  // Each bound as the field shows it when it can be read, else as the address has it.
  const field = (text: string, end: 'from' | 'to') => {
    const r = text.trim() ? readTimeInput(text, end) : null;
    return r ? timeInputText(r.time, end) : text;
  };
  const fromText = field(address.get('from') ?? '', 'from');
  const toText = field(address.get('to') ?? '', 'to');
  const check = checkRangeForm(fromText, toText);
  const query: RunQuery = {
    state: (kRunStates as string[]).includes(state) ? (state as RunState) : '',
    from: check.ok ? check.from : '',
    to: check.ok ? check.to : '',
  };
  if (!check.ok) {
    const { field, key, params } = check;
    return { query, fromText, toText, problem: { field, key, params } };
  }
  return { query, fromText, toText, problem: null };
}

// The address's query for a query and the run selected, empty fields left out, in a fixed order
// ("" for none).
export function runQueryToAddress(q: RunQuery, run?: string | null): string {
  const p = new URLSearchParams();
  if (q.state) p.set('state', q.state);
  if (q.from) p.set('from', q.from);
  if (q.to) p.set('to', q.to);
  if (run) p.set('run', run);
  return p.toString();
}

// The API's path of a page of runs: `after` is the cursor of the page before (its `next`).
export function runsApiPath(pipeline: string, q: RunQuery, limit: number, after?: string | null): string {
  const p = new URLSearchParams({ limit: String(limit) });
  if (q.state) p.set('state', q.state);
  if (q.from) p.set('from', q.from);
  if (q.to) p.set('to', q.to);
  if (after) p.set('after', after);
  return `/pipelines/${encodeURIComponent(pipeline)}/runs?${p.toString()}`;
}

// Does a run belong to the query's answer? The page applies live events to the runs it has:
// a run created since (a manual one at now) or one whose state moved on leaves the list when the
// query no longer holds for it, as the server would answer it now.
export function runMatches(run: Pick<Run, 'logicalTime' | 'state'>, q: RunQuery): boolean {
  if (q.state && run.state !== q.state) return false;
  if (!q.from && !q.to) return true;
  const at = readTimeInput(run.logicalTime, 'from')?.micros;
  if (at === undefined) return true;
  if (q.from && at < readTimeInput(q.from, 'from')!.micros) return false;
  if (q.to && at > readTimeInput(q.to, 'to')!.micros) return false;
  return true;
}

// A quick range: the last `hours` up to now (the server's now), from the minute; no end, so that
// the runs created while the page is open come in.
export function lastHours(hours: number, nowMs: number): { from: string; to: string } {
  const from = Math.floor((nowMs - hours * 3600e3) / 60000) * 60000;
  return { from: rfc3339(from * 1000), to: '' };
}
