// What an operator's action on a run changes (issue #26 §3), listed in its confirmation dialog
// before anything happens. Run-level actions are previewed here from the run as the page has
// it, by the server's rules (workflow/runner/operator_action.hpp); task-level ones ask the
// server (`?dryRun=true`), whose answer changesFromServer() reads.
import type { Run, TaskState } from '../api/types';

export interface TaskChange {
  task: string;
  from: string;
  to: string;
}

export type RunAction = 'kill' | 'mark-success' | 'rerun';

const kEnded: TaskState[] = ['succeeded', 'failed', 'upstream_failed', 'skipped', 'killed'];
const kCleared: TaskState[] = ['failed', 'upstream_failed', 'killed'];

export function runActionChanges(run: Run, action: RunAction): TaskChange[] {
  const tasks = run.tasks ?? [];
  switch (action) {
    case 'kill': // the unfinished tasks end as killed, a running attempt killed
      return tasks.filter((t) => !kEnded.includes(t.state)).map((t) => ({ task: t.name, from: t.state, to: 'killed' }));
    case 'mark-success': // every task that did not succeed or skip becomes succeeded
      return tasks.filter((t) => t.state !== 'succeeded' && t.state !== 'skipped').map((t) => ({ task: t.name, from: t.state, to: 'succeeded' }));
    case 'rerun': // Airflow's clear of the failed ones: they run again
      return tasks.filter((t) => kCleared.includes(t.state)).map((t) => ({ task: t.name, from: t.state, to: 'pending' }));
  }
}

// Can the action apply to the run at all (the server refuses it otherwise, 409)?
export function runActionAllowed(run: Run, action: RunAction): boolean {
  switch (action) {
    case 'kill':
      return run.state === 'queued' || run.state === 'running';
    case 'mark-success':
      return run.state !== 'succeeded';
    case 'rerun':
      return run.state === 'failed' || run.state === 'killed' || run.state === 'expired';
  }
}

// The server's list of changes for a task action ({"changes": [{"task", "from", "to"}]}), or
// [] when it sent none.
export function changesFromServer(body: unknown): TaskChange[] {
  const list = (body as { changes?: unknown })?.changes;
  if (!Array.isArray(list)) return [];
  return list
    .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object')
    .map((c) => ({ task: String(c.task ?? ''), from: String(c.from ?? ''), to: String(c.to ?? '') }))
    .filter((c) => c.task !== '');
}
