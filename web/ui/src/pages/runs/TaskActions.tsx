// One task of a run: its attempts (each with its log one click away) and the operator's
// actions on it (issue #26 §2, §3): clear with Airflow's options, mark success, mark failed,
// kill. Each asks first in a dialog listing what changes (the server's dry run), then says what
// happened in a toast; the server records each in its audit log.
import { useCallback, useRef, useState } from 'react';
import { api, enc } from '../../api/client';
import { readOnlyHint } from '../../api/session';
import type { Attempt, Run, RunTask } from '../../api/types';
import { StateBadge, useToast } from '../../components/ui';
import { fmtDuration, fmtShort } from '../../format';
import { changesFromServer, type TaskChange } from '../../model/runActions';
import { AttemptLog } from './AttemptLog';
import { ConfirmChanges } from './ConfirmChanges';
import { t as tr } from '../../i18n';

type TaskAction = 'clear' | 'mark-success' | 'mark-failed' | 'kill';

interface ClearOptions {
  downstream: boolean;
  upstream: boolean;
  failedOnly: boolean;
}

const kTitle = { clear: 'task.titleClear', 'mark-success': 'task.titleMarkSuccess', 'mark-failed': 'task.titleMarkFailed', kill: 'task.titleKill' } as const;
const kWhat = { clear: 'task.whatClear', 'mark-success': 'task.whatMarkSuccess', 'mark-failed': 'task.whatMarkFailed', kill: 'task.whatKill' } as const;
const kDone = { clear: 'task.doneClear', 'mark-success': 'task.doneMarkSuccess', 'mark-failed': 'task.doneMarkFailed', kill: 'task.doneKill' } as const;

const kEnded = ['succeeded', 'failed', 'upstream_failed', 'skipped', 'killed'];

export function TaskActions({ pipeline, run, task, now, canWrite, onRun }: { pipeline: string; run: Run; task: RunTask; now: number; canWrite: boolean; onRun: (r: Run) => void }) {
  const toast = useToast();
  const [asking, setAsking] = useState<TaskAction | null>(null);
  const [options, setOptions] = useState<ClearOptions>({ downstream: true, upstream: false, failedOnly: false });
  const [log, setLog] = useState<{ number: number; attempt: Attempt } | null>(null);
  const route = `/pipelines/${enc(pipeline)}/runs/${enc(run.logicalTime)}/tasks/${enc(task.name)}`;
  const body = asking === 'clear' ? options : undefined;

  // The server's dry run, asked again when the clear options change.
  // Not asked again when the task changes under the open dialog (the action's own answer
  // does that): the state it was opened on is kept in a ref.
  const stateWhenAsked = useRef(task.state);
  const ask = (action: TaskAction) => {
    stateWhenAsked.current = task.state;
    setAsking(action);
  };
  const preview = useCallback(async (): Promise<TaskChange[]> => {
    if (asking === 'kill') return [{ task: task.name, from: stateWhenAsked.current, to: 'killed' }];
    return changesFromServer(await api(`${route}/${asking}?dryRun=true`, { method: 'POST', body: body ?? {} }));
  }, [asking, route, body, task.name]);

  const confirm = async () => {
    if (!asking) return;
    // Kill answers with the Run; clear and mark with {changes, run}.
    const r = await api<{ run?: Run } & Run>(`${route}/${asking}`, { method: 'POST', body: body ?? {} });
    if (r && 'run' in r && r.run) onRun(r.run);
    else if (r && (r as Run).logicalTime) onRun(r as Run);
    toast('ok', tr(kDone[asking], { task: task.name }));
  };

  const running = task.state === 'running';
  const ended = kEnded.includes(task.state);
  const hint = (what: string) => (canWrite ? what : readOnlyHint());
  return (
    <div data-testid="task-actions" data-task={task.name}>
      <div className="task-actions">
        <button className="btn sm" disabled={!canWrite || !ended} onClick={() => ask('clear')} title={hint(tr('task.hintClear'))} data-testid="task-clear">
          {tr('task.clear')}
        </button>
        <button className="btn sm" disabled={!canWrite || task.state === 'succeeded'} onClick={() => ask('mark-success')} title={hint(tr('task.hintMarkSuccess'))} data-testid="task-mark-success">
          {tr('task.markSuccess')}
        </button>
        <button className="btn sm" disabled={!canWrite || task.state === 'failed'} onClick={() => ask('mark-failed')} title={hint(tr('task.hintMarkFailed'))} data-testid="task-mark-failed">
          {tr('task.markFailed')}
        </button>
        <button className="btn sm danger" disabled={!canWrite || !running} onClick={() => ask('kill')} title={hint(tr('task.hintKill'))} data-testid="task-kill">
          {tr('task.kill')}
        </button>
      </div>
      {task.attempts.length === 0 ? (
        <div className="small muted">{tr('task.noAttempt', { why: tr(task.state === 'upstream_failed' ? 'task.upstreamFailed' : task.state === 'skipped' ? 'task.skipped' : 'task.notStarted') })}</div>
      ) : (
        <div className="table-scroll">
          <table className="table small" data-testid="attempts">
            <thead>
              <tr>
                <th>#</th>
                <th>{tr('task.colState')}</th>
                <th>{tr('task.colDuration')}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {task.attempts.map((a, i) => (
                <tr key={i} data-attempt={i + 1}>
                  <td>{i + 1}</td>
                  <td>
                    <StateBadge state={a.state} />
                    {a.reason && <div className="why">{a.reason}</div>}
                  </td>
                  <td className="nowrap" title={tr('task.askedFor', { start: fmtShort(a.start) }) + (a.end ? tr('task.endedAt', { end: fmtShort(a.end) }) : '')}>
                    {fmtDuration((a.end ? Date.parse(a.end) : now) - Date.parse(a.start))}
                    <div className="small muted">{fmtShort(a.start)}</div>
                  </td>
                  <td>
                    <button className="btn sm ghost" onClick={() => setLog({ number: i + 1, attempt: a })} data-testid={`log-${i + 1}`}>
                      {tr('task.log')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {asking && (
        <ConfirmChanges title={tr(kTitle[asking])} what={tr(kWhat[asking], { task: task.name })} changes={preview} confirm={tr(kTitle[asking])} danger={asking === 'kill' || asking === 'mark-failed'} onConfirm={confirm} onClose={() => setAsking(null)}>
          {asking === 'clear' && (
            <div className="clear-options" data-testid="clear-options">
              {(['downstream', 'upstream', 'failedOnly'] as const).map((k) => (
                <label key={k}>
                  <input type="checkbox" checked={options[k]} onChange={(e) => setOptions((o) => ({ ...o, [k]: e.target.checked }))} data-testid={`clear-${k}`} />
                  {tr(k === 'downstream' ? 'task.withDownstream' : k === 'upstream' ? 'task.withUpstream' : 'task.failedOnly')}
                </label>
              ))}
            </div>
          )}
        </ConfirmChanges>
      )}
      {log && <AttemptLog pipeline={pipeline} logicalTime={run.logicalTime} task={task.name} number={log.number} attempt={log.attempt} onClose={() => setLog(null)} />}
    </div>
  );
}
