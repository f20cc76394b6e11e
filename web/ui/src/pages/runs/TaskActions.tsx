// One task of a run: its attempts (each with its log one click away) and the operator's
// actions on it (issue #26 §2, §3): clear with Airflow's options, mark success, mark failed,
// kill. Each asks first in a dialog listing what changes (the server's dry run), then says what
// happened in a toast; the server records each in its audit log.
import { useCallback, useRef, useState } from 'react';
import { api, enc } from '../../api/client';
import { kReadOnlyHint } from '../../api/session';
import type { Attempt, Run, RunTask } from '../../api/types';
import { StateBadge, useToast } from '../../components/ui';
import { fmtDuration, fmtShort } from '../../format';
import { changesFromServer, type TaskChange } from '../../model/runActions';
import { AttemptLog } from './AttemptLog';
import { ConfirmChanges } from './ConfirmChanges';

type TaskAction = 'clear' | 'mark-success' | 'mark-failed' | 'kill';

interface ClearOptions {
  downstream: boolean;
  upstream: boolean;
  failedOnly: boolean;
}

const kTitle: Record<TaskAction, string> = { clear: 'Clear the task', 'mark-success': 'Mark the task succeeded', 'mark-failed': 'Mark the task failed', kill: 'Kill the task' };
const kWhat: Record<TaskAction, (task: string) => string> = {
  clear: (t) => `${t} and the tasks chosen below are cleared and run again (Airflow's clear); the run goes back to running.`,
  'mark-success': (t) => `${t} is declared succeeded without running (a running attempt is stopped); its downstream tasks may then start.`,
  'mark-failed': (t) => `${t} is declared failed (a running attempt is stopped); its downstream tasks follow their trigger rules.`,
  kill: (t) => `The running attempt of ${t} is killed now, without a retry; the task ends as killed and its downstream tasks follow their trigger rules (killed counts as failed). The rest of the run goes on.`,
};
const kDone: Record<TaskAction, string> = { clear: 'cleared', 'mark-success': 'marked succeeded', 'mark-failed': 'marked failed', kill: 'killed' };

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
    toast('ok', `${task.name} ${kDone[asking]}.`);
  };

  const running = task.state === 'running';
  const ended = kEnded.includes(task.state);
  const hint = (what: string) => (canWrite ? what : kReadOnlyHint);
  return (
    <div data-testid="task-actions" data-task={task.name}>
      <div className="task-actions">
        <button className="btn sm" disabled={!canWrite || !ended} onClick={() => ask('clear')} title={hint('Run this task again, with its downstream or upstream if you choose')} data-testid="task-clear">
          Clear…
        </button>
        <button className="btn sm" disabled={!canWrite || task.state === 'succeeded'} onClick={() => ask('mark-success')} title={hint('Declare the task succeeded')} data-testid="task-mark-success">
          Mark success
        </button>
        <button className="btn sm" disabled={!canWrite || task.state === 'failed'} onClick={() => ask('mark-failed')} title={hint('Declare the task failed')} data-testid="task-mark-failed">
          Mark failed
        </button>
        <button className="btn sm danger" disabled={!canWrite || !running} onClick={() => ask('kill')} title={hint('Kill its running attempt, without a retry')} data-testid="task-kill">
          Kill
        </button>
      </div>
      {task.attempts.length === 0 ? (
        <div className="small muted">No attempt ({task.state === 'upstream_failed' ? 'an upstream task failed' : task.state === 'skipped' ? 'skipped' : 'not started'}).</div>
      ) : (
        <div className="table-scroll">
          <table className="table small" data-testid="attempts">
            <thead>
              <tr>
                <th>#</th>
                <th>State</th>
                <th>Duration</th>
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
                  <td className="nowrap" title={`asked for ${fmtShort(a.start)}${a.end ? `, ended ${fmtShort(a.end)}` : ''}`}>
                    {fmtDuration((a.end ? Date.parse(a.end) : now) - Date.parse(a.start))}
                    <div className="small muted">{fmtShort(a.start)}</div>
                  </td>
                  <td>
                    <button className="btn sm ghost" onClick={() => setLog({ number: i + 1, attempt: a })} data-testid={`log-${i + 1}`}>
                      Log
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {asking && (
        <ConfirmChanges title={kTitle[asking]} what={kWhat[asking](task.name)} changes={preview} confirm={kTitle[asking]} danger={asking === 'kill' || asking === 'mark-failed'} onConfirm={confirm} onClose={() => setAsking(null)}>
          {asking === 'clear' && (
            <div className="clear-options" data-testid="clear-options">
              {(['downstream', 'upstream', 'failedOnly'] as const).map((k) => (
                <label key={k}>
                  <input type="checkbox" checked={options[k]} onChange={(e) => setOptions((o) => ({ ...o, [k]: e.target.checked }))} data-testid={`clear-${k}`} />
                  {k === 'downstream' ? 'with its downstream tasks' : k === 'upstream' ? 'with its upstream tasks' : 'only those that failed'}
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
