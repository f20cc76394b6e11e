// The runs page's live updates (web/API.md, "Live updates"): a "run", "task" or "attempt" event
// applied to the page of runs on screen. Pure, so that a test can replay events.

import type { EventType } from '../api/events';
import type { Attempt, AttemptState, Run, RunTask, TaskState } from '../api/types';

// Runs per page of GET /pipelines/{name}/runs.
export const kRunsPage = 25;

function upsertTask(tasks: RunTask[], name: string, f: (t: RunTask) => RunTask): RunTask[] {
  const i = tasks.findIndex((t) => t.name === name);
  if (i < 0) return [...tasks, f({ name, state: 'pending', attempts: [] })];
  const out = tasks.slice();
  out[i] = f(out[i]);
  return out;
}

// One live event applied to a page of runs (newest first); returns the same array when the
// event changes nothing shown. Attempt events carry only what changed (web/API.md): a started
// attempt its start, a running one its running instant, an ended one its end, state and reason.
export function applyRunEvent(runs: Run[], type: EventType, data: unknown, specNames: string[], missing: Set<string>): Run[] {
  const d = data as { logicalTime: string };
  const i = runs.findIndex((r) => r.logicalTime === d.logicalTime);
  if (i < 0) {
    if (type !== 'run') {
      // Older than the page: not shown. Newer: read it.
      if (runs.length === 0 || d.logicalTime > runs[runs.length - 1].logicalTime) missing.add(d.logicalTime);
      return runs;
    }
    const r = data as Run;
    // A run older than every run of the page belongs to an older page.
    if (runs.length >= kRunsPage && r.logicalTime < runs[runs.length - 1].logicalTime) return runs;
    const added = [{ ...r, tasks: specNames.map((n) => ({ name: n, state: 'pending' as TaskState, attempts: [] })) }, ...runs];
    return added.sort((a, b) => b.logicalTime.localeCompare(a.logicalTime));
  }
  const out = runs.slice();
  const run = { ...out[i] };
  if (type === 'run') {
    const e = data as Partial<Run>;
    run.state = e.state ?? run.state;
    if ('start' in e) run.start = e.start ?? null;
    if ('end' in e) run.end = e.end ?? null;
    if (e.trigger) run.trigger = e.trigger;
  } else if (type === 'task') {
    const e = data as { task: string; state: TaskState };
    run.tasks = upsertTask(run.tasks ?? [], e.task, (t) => ({ ...t, state: e.state }));
  } else if (type === 'attempt') {
    const e = data as { task: string; attempt: number; state: AttemptState; start?: string; running?: string; end?: string; reason?: string };
    run.tasks = upsertTask(run.tasks ?? [], e.task, (t) => {
      const attempts = t.attempts.slice();
      const a: Attempt = { ...(attempts[e.attempt] ?? { start: e.start ?? e.running ?? e.end ?? '', end: null, state: e.state }) };
      a.state = e.state;
      if (e.start) a.start = e.start;
      if (e.running && e.running !== a.start) a.running = e.running;
      if (e.end) a.end = e.end;
      if (e.reason) a.reason = e.reason; // why it ended, when the executor said
      attempts[e.attempt] = a;
      return { ...t, attempts: attempts.filter(Boolean) };
    });
  }
  out[i] = run;
  return out;
}

