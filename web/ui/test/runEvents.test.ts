// Live updates of the runs page (src/model/runEvents.ts): attempt events carry only what
// changed, so an ended attempt's reason (issue 23: a live API server's refusal, a pod's exit
// code) must be taken from its "end" event, as GET /runs/{t} gives it after a reload.

import { describe, expect, it } from 'vitest';
import { applyRunEvent } from '../src/model/runEvents';
import type { Run } from '../src/api/types';

const t = '2026-01-01T00:00:00Z';

function page(): Run[] {
  return [
    {
      pipeline: 'infer',
      logicalTime: t,
      trigger: 'manual',
      state: 'running',
      start: t,
      end: null,
      tasks: [{ name: 'score', state: 'running', attempts: [] }],
    } as Run,
  ];
}

describe('attempt events', () => {
  it('keep the reason an attempt ended with', () => {
    const missing = new Set<string>();
    const reason = 'creating configmap ml/infer-score-20260101000000-a1: 404 NotFound: namespaces "ml" not found';
    let runs = applyRunEvent(page(), 'attempt', { pipeline: 'infer', logicalTime: t, task: 'score', attempt: 0, state: 'queued', start: t }, ['score'], missing);
    runs = applyRunEvent(runs, 'attempt', { pipeline: 'infer', logicalTime: t, task: 'score', attempt: 0, state: 'error', end: '2026-01-01T00:00:01Z', reason }, ['score'], missing);
    expect(runs[0]?.tasks?.[0]?.attempts).toEqual([{ start: t, end: '2026-01-01T00:00:01Z', state: 'error', reason }]);
    expect(missing.size).toBe(0);
  });

  it('add no reason when the end has none', () => {
    const runs = applyRunEvent(page(), 'attempt', { pipeline: 'infer', logicalTime: t, task: 'score', attempt: 0, state: 'succeeded', start: t, end: t }, ['score'], new Set());
    expect(runs[0]?.tasks?.[0]?.attempts[0]).not.toHaveProperty('reason');
  });
});
