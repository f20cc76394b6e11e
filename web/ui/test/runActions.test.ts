import { describe, expect, it } from 'vitest';
import type { Run, TaskState } from '../src/api/types';
import { changesFromServer, runActionAllowed, runActionChanges } from '../src/model/runActions';

const run = (state: Run['state'], tasks: [string, TaskState][]): Run =>
  ({ pipeline: 'p', logicalTime: '2026-01-01T00:00:00Z', trigger: 'manual', state, start: null, end: null, tasks: tasks.map(([name, s]) => ({ name, state: s, attempts: [] })) }) as Run;

describe('run actions', () => {
  // extract succeeded, train running, eval pending, report skipped.
  const r = run('running', [['extract', 'succeeded'], ['train', 'running'], ['eval', 'pending'], ['report', 'skipped']]);

  it('kill ends the unfinished tasks as killed', () => {
    expect(runActionChanges(r, 'kill')).toEqual([
      { task: 'train', from: 'running', to: 'killed' },
      { task: 'eval', from: 'pending', to: 'killed' },
    ]);
  });

  it('mark success turns every task that neither succeeded nor skipped into succeeded', () => {
    expect(runActionChanges(r, 'mark-success').map((c) => c.task)).toEqual(['train', 'eval']);
  });

  it('rerun clears the failed, upstream_failed and killed tasks', () => {
    const failed = run('failed', [['a', 'succeeded'], ['b', 'failed'], ['c', 'upstream_failed'], ['d', 'killed']]);
    expect(runActionChanges(failed, 'rerun').map((c) => `${c.task}:${c.from}->${c.to}`)).toEqual(['b:failed->pending', 'c:upstream_failed->pending', 'd:killed->pending']);
    expect(runActionAllowed(failed, 'rerun')).toBe(true);
    expect(runActionAllowed(r, 'rerun')).toBe(false);
    expect(runActionAllowed(failed, 'kill')).toBe(false);
    expect(runActionAllowed(r, 'kill')).toBe(true);
  });

  it("reads the server's changes and ignores what is not one", () => {
    expect(changesFromServer({ changes: [{ task: 'b', from: 'failed', to: 'pending' }, null, { from: 'x' }] })).toEqual([{ task: 'b', from: 'failed', to: 'pending' }]);
    expect(changesFromServer(null)).toEqual([]);
  });
});
