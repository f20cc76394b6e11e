// What a task's attempts say about it (issue #26 §1): every attempt that did not succeed has a
// reason (web/API.md, Run), which the runs grid shows on its cell.
import type { RunTask } from '../api/types';

// The reason of the task's latest attempt, or '' when it has none (running, succeeded).
export function lastReason(task: Pick<RunTask, 'attempts'>): string {
  const a = task.attempts[task.attempts.length - 1];
  return a?.reason ?? '';
}
