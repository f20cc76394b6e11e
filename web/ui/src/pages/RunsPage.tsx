import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { CustomSeriesRenderItemAPI, CustomSeriesRenderItemParams } from 'echarts';
import { api, enc } from '../api/client';
import { useLiveEvents, useLiveStatus, type EventType } from '../api/events';
import { readOnlyHint, serverNow, useCanWrite } from '../api/session';
import { load, mutate, useResource } from '../api/resource';
import type { Attempt, PipelineDetail, PipelineSummary, Run, TaskState } from '../api/types';
import { Chart, echarts, kFont } from '../components/Chart';
import { IconCheck, IconClose, IconPlay, IconRefresh, IconTrash } from '../components/icons';
import { Banner, Skeleton, StateBadge, stateLabel, useToast } from '../components/ui';
import { fmtDuration, fmtRelative, fmtShort, fmtTime } from '../format';
import { lastReason } from '../model/attempts';
import { runActionAllowed, runActionChanges, type RunAction } from '../model/runActions';
import { ConfirmChanges } from './runs/ConfirmChanges';
import { TaskActions } from './runs/TaskActions';
import { BackfillDialog } from './runs/BackfillDialog';
import { DeletePipelineDialog } from './runs/DeletePipelineDialog';
import { TriggerDialog } from './runs/TriggerDialog';
import type { ParamSpec } from '../model/params';
import { applyRunEvent, kRunsPage } from '../model/runEvents';
import { RunFilter } from './runs/RunFilter';
import { isRunQueryFiltered, kAllRuns, runMatches, runQueryFromAddress, runQueryToAddress, runsApiPath, type RunQuery } from '../model/runQuery';
import { isPlainObject } from '../model/util';
import { href, navigate } from '../router';
import { actionError, upcoming } from './PipelinesPage';
import { t as tr, useT } from '../i18n';

const kPage = kRunsPage;
const kStateColor: Record<string, string> = {
  succeeded: '#22a06b',
  failed: '#e5484d',
  running: '#3e63dd',
  queued: '#a0a8b8',
  pending: '#dfe3ea',
  ready: '#9db4f5',
  upstream_failed: '#f08c3a',
  skipped: '#e38fc6',
  killed: '#8e1d2c',
  expired: '#b08a3e',
  error: '#b42318',
  timeout: '#d9488f',
  lost: '#6b7280',
};
const kRunActionTitle: Record<RunAction, () => string> = { kill: () => tr('runs.actKillTitle'), 'mark-success': () => tr('runs.actMarkTitle'), rerun: () => tr('runs.actRerunTitle') };
const kRunActionWhat: Record<RunAction, (when: string) => string> = {
  kill: (when) => tr('runs.actKillWhat', { when }),
  'mark-success': (when) => tr('runs.actMarkWhat', { when }),
  rerun: (when) => tr('runs.actRerunWhat', { when }),
};
const kRunActionDone: Record<RunAction, (when: string) => string> = {
  kill: (when) => tr('runs.doneKill', { when }),
  'mark-success': (when) => tr('runs.doneMark', { when }),
  rerun: (when) => tr('runs.doneRerun', { when }),
};
const kTaskLegend: TaskState[] = ['succeeded', 'running', 'failed', 'upstream_failed', 'skipped', 'pending', 'killed'];

interface RunsPage {
  runs: Run[];
  next: string | null;
}

// The page's address for a pipeline with the address's filter kept (the run selected is not:
// another pipeline has other runs).
function withFilter(name: string, address: URLSearchParams): string {
  const keep = new URLSearchParams(address);
  keep.delete('run');
  const q = keep.toString();
  return href('runs', name) + (q ? `?${q}` : '');
}

// `address`: the query of the page's address: the run selected (`run`) and the runs asked for
// (`state`, `from`, `to`: model/runQuery.ts).
export default function RunsPage({ pipeline, address }: { pipeline: string | null; address: URLSearchParams }) {
  const list = useResource<{ pipelines: PipelineSummary[] }>('/pipelines');
  const t = useT();
  useEffect(() => {
    if (!pipeline && list.data?.pipelines.length) navigate(withFilter(list.data.pipelines[0].name, address), true);
  }, [pipeline, list.data, address]);
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>{t('runs.title')}</h1>
          <div className="sub">{t('runs.sub')}</div>
        </div>
        <div className="actions">
          <select className="input" style={{ width: 260 }} value={pipeline ?? ''} onChange={(e) => navigate(withFilter(e.target.value, address))} aria-label={t('runs.pipeline')} data-testid="runs-pipeline">
            {!pipeline && <option value="">{t('runs.choose')}</option>}
            {list.data?.pipelines.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {pipeline ? <PipelineRuns key={pipeline} name={pipeline} address={address} summary={list.data?.pipelines.find((p) => p.name === pipeline)} onRunCreated={list.reload} /> : list.data?.pipelines.length === 0 ? <div className="card empty"><h2>{t('runs.noPipelines')}</h2></div> : <GridSkeleton />}
    </div>
  );
}

// What a filter asks for, in words: "in state failed from 28 Nov 2026, 03:00 UTC to ...".
function describeQuery(q: RunQuery): string {
  const parts: string[] = [];
  if (q.state) parts.push(tr('runs.whatState', { state: stateLabel(q.state) }));
  if (q.from) parts.push(tr('runs.whatFrom', { time: fmtTime(q.from) }));
  if (q.to) parts.push(tr('runs.whatTo', { time: fmtTime(q.to) }));
  return parts.join(tr('runs.whatJoin'));
}

// The grid's rows while a query is asked: the page around it stays.
function GridRowsSkeleton() {
  return (
    <div className="card-body">
      {Array.from({ length: 5 }, (_, r) => (
        <div key={r} className="row" style={{ marginBottom: 10 }}>
          <Skeleton w={120} h={16} />
          {Array.from({ length: 12 }, (_, c) => <Skeleton key={c} w={16} h={16} />)}
        </div>
      ))}
    </div>
  );
}

function GridSkeleton() {
  return (
    <div className="runs-layout">
      <div className="card card-body">
        {Array.from({ length: 7 }, (_, r) => (
          <div key={r} className="row" style={{ marginBottom: 10 }}>
            <Skeleton w={120} h={16} />
            {Array.from({ length: 18 }, (_, c) => <Skeleton key={c} w={16} h={16} />)}
          </div>
        ))}
      </div>
      <div className="card card-body">
        <Skeleton h={20} w={180} style={{ marginBottom: 12 }} />
        <Skeleton h={220} />
      </div>
    </div>
  );
}

function PipelineRuns({ name, address, summary, onRunCreated }: { name: string; address: URLSearchParams; summary?: PipelineSummary; onRunCreated: () => void }) {
  const toast = useToast();
  // The runs asked of the server: a state and a window of logical times, from the address. A
  // window the page cannot read is asked nothing (key null) until it is corrected or reset.
  const selected = address.get('run');
  const addressKey = address.toString();
  const filter = useMemo(() => runQueryFromAddress(new URLSearchParams(addressKey)), [addressKey]);
  const query = filter.query;
  const filtered = isRunQueryFiltered(query);
  const key = filter.problem ? null : runsApiPath(name, query, kPage);
  const live = useLiveStatus();
  const [inFlight, setInFlight] = useState(false);
  // Live events keep the grid current; without them (or while reconnecting), poll, fast while
  // a run is in flight.
  const page = useResource<RunsPage>(key, { refreshMs: live === 'live' ? 60000 : inFlight ? 3000 : 15000 });
  useEffect(() => setInFlight(!!page.data?.runs.some((r) => r.state === 'running' || r.state === 'queued')), [page.data]);
  const detail = useResource<PipelineDetail>(`/pipelines/${enc(name)}`);
  // The older pages asked for ("Older runs"), of the query they were asked with.
  const [olderOf, setOlderOf] = useState<{ key: string | null; page: RunsPage } | null>(null);
  const older = olderOf?.key === key ? olderOf.page : null;
  const mutatePage = useCallback((f: (old: RunsPage | undefined) => RunsPage | undefined) => {
    if (key) mutate<RunsPage>(key, f);
  }, [key]);
  const [task, setTask] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [asking, setAsking] = useState<{ action: RunAction; run: Run } | null>(null);
  const [dialog, setDialog] = useState<'backfill' | 'delete' | 'trigger' | null>(null);
  const params = (detail.data as { params?: ParamSpec[] } | undefined)?.params ?? [];
  const canWrite = useCanWrite();

  // Live: runs appear and change state, tasks and attempts move on. A busy server sends
  // hundreds of events a second (a catch-up creates many runs at once): they are applied in
  // one update per 100 ms, not one render each.
  const pending = useRef<{ type: EventType; data: unknown }[]>([]);
  const flushTimer = useRef<number | null>(null);
  const specNames = useRef<string[]>([]);
  specNames.current = specTasks(detail.data);
  useEffect(() => () => {
    if (flushTimer.current !== null) window.clearTimeout(flushTimer.current);
  }, []);
  useLiveEvents(['run', 'task', 'attempt', 'reset'], (type, data) => {
    if (!key) return;
    if (type === 'reset') {
      pending.current = [];
      void page.reload();
      return;
    }
    if ((data as { pipeline?: string }).pipeline !== name) return;
    pending.current.push({ type, data });
    if (flushTimer.current !== null) return;
    flushTimer.current = window.setTimeout(() => {
      flushTimer.current = null;
      const events = pending.current;
      pending.current = [];
      const missing = new Set<string>();
      // A new run (its event has a trigger): the schedule moved on, read the next ticks again.
      if (events.some((e) => e.type === 'run' && 'trigger' in (e.data as object))) void onRunCreated();
      mutatePage((old) => {
        if (!old) return old;
        let runs = old.runs;
        for (const e of events) runs = applyRunEvent(runs, e.type, e.data, specNames.current, missing);
        return runs === old.runs ? old : { ...old, runs };
      });
      // A task or attempt of a run this page has not seen (it was created before the page
      // loaded its list and is not on it): read that run.
      for (const lt of missing)
        void load(`/pipelines/${enc(name)}/runs/${enc(lt)}`)
          .then((r) => mutatePage((o) => o && { ...o, runs: upsert(o.runs, r as Run) }))
          .catch(() => {});
    }, 100);
  });

  const runs = useMemo(() => {
    const all = [...(page.data?.runs ?? []), ...(older?.runs ?? [])];
    const seen = new Set<string>();
    // The server answered the query; live events since may have added a run outside it (a
    // manual one at now) or moved one out of the state asked for.
    return all.filter((r) => !seen.has(r.logicalTime) && !!seen.add(r.logicalTime) && runMatches(r, query)).sort((a, b) => a.logicalTime.localeCompare(b.logicalTime));
  }, [page.data, older, query]);

  // A new query in the address: the runs of the old one are not selected any more.
  const ask = useCallback((q: RunQuery) => navigate(href('runs', name) + (runQueryToAddress(q) ? `?${runQueryToAddress(q)}` : '')), [name]);

  const taskNames = useMemo(() => {
    const names = specTasks(detail.data);
    for (const r of runs) for (const t of r.tasks ?? []) if (!names.includes(t.name)) names.push(t.name);
    return names;
  }, [detail.data, runs]);

  const current = runs.find((r) => r.logicalTime === selected) ?? runs[runs.length - 1];
  const select = useCallback((r: Run, t?: string) => {
    navigate(href('runs', name) + `?${runQueryToAddress(query, r.logicalTime)}`, true);
    setTask(t ?? null);
  }, [name, query]);

  // The next page of the same query, older than the last one loaded.
  const loadOlder = async () => {
    const cursor = older?.next ?? page.data?.next;
    if (!cursor || !key) return;
    const r = await api<RunsPage>(runsApiPath(name, query, kPage, cursor));
    setOlderOf((o) => ({ key, page: { runs: [...(o?.key === key ? o.page.runs : []), ...r.runs], next: r.next } }));
  };

  const act = async (what: 'trigger') => {
    setBusy(what);
    try {
      const r = await api<Run>(`/pipelines/${enc(name)}/trigger`, { method: 'POST' });
      mutatePage((o) => o && { ...o, runs: upsert(o.runs, r) });
      select(r);
      toast('ok', tr('runs.created', { time: fmtTime(r.logicalTime) }));
    } catch (e) {
      toast('error', actionError(e));
    } finally {
      setBusy(null);
    }
  };

  // A run's action, once its dialog is confirmed: the server's Run replaces the page's.
  const runAction = async (action: RunAction, run: Run) => {
    const r = await api<Run>(`/pipelines/${enc(name)}/runs/${enc(run.logicalTime)}/${action}`, { method: 'POST' });
    mutatePage((o) => o && { ...o, runs: upsert(o.runs, r) });
    toast('ok', kRunActionDone[action](fmtTime(run.logicalTime)));
  };

  // The grid's place: what the query found, or why there is nothing to show.
  let grid: ReactNode;
  if (filter.problem) {
    grid = (
      <div className="empty" data-testid="runs-range-refused">
        {tr('runs.rangeInAddress')}
      </div>
    );
  } else if (!page.data && page.error) {
    grid = <Banner>{tr('runs.loadFailed', { message: page.error.message })}</Banner>;
  } else if (!page.data) {
    grid = <GridRowsSkeleton />;
  } else if (runs.length === 0 && filtered) {
    grid = (
      <div className="empty" data-testid="runs-none-match">
        <div>{tr('runs.noneMatchQuery', { what: describeQuery(query) })}</div>
        <button className="btn sm" style={{ marginTop: 8 }} onClick={() => ask(kAllRuns)}>
          {tr('runs.reset')}
        </button>
      </div>
    );
  } else if (runs.length === 0) {
    grid = (
      <div className="empty">
        <h2>{tr('runs.noRuns')}</h2>
        <div>{tr('runs.noRunsDetail')}</div>
      </div>
    );
  } else {
    grid = (
      <>
        <div className="grid-scroll" style={{ padding: '8px 0 12px' }}>
          <RunGrid runs={runs} taskNames={taskNames} current={current} task={task} onSelect={select} />
        </div>
        <div className="legend" style={{ padding: '0 16px 14px' }}>
          {kTaskLegend.map((s) => (
            <span key={s}>
              <i style={{ background: kStateColor[s] }} />
              {stateLabel(s)}
            </span>
          ))}
        </div>
      </>
    );
  }
  const hasOlder = !!(older ? older.next : page.data?.next);

  return (
    <div className="runs-layout">
      <div className="card">
        <div className="card-head">
          <div style={{ minWidth: 0 }}>
            <h2>{name}</h2>
            {summary?.schedule && (
              <div className="small muted">
                <code>{summary.schedule.cron}</code> {summary.schedule.timezone}
                {upcoming(summary)[0] && ` · ${tr('runs.next', { when: fmtRelative(upcoming(summary)[0]) })}`}
              </div>
            )}
          </div>
          <div className="actions">
            {hasOlder && (
              <button className="btn sm" onClick={loadOlder} data-testid="runs-older">
                {tr('runs.older')}
              </button>
            )}
            <button className="btn sm ghost icon" onClick={() => void page.reload()} title={tr('common.refresh')}>
              <IconRefresh />
            </button>
            {summary?.schedule && (
              <button className="btn sm" onClick={() => setDialog('backfill')} disabled={!canWrite} title={canWrite ? tr('runs.backfillTitle') : readOnlyHint()} data-testid="runs-backfill">
                {tr('runs.backfill')}
              </button>
            )}
            <button className="btn sm ghost danger" onClick={() => setDialog('delete')} disabled={!canWrite} title={canWrite ? tr('runs.deleteTitle') : readOnlyHint()} data-testid="runs-delete">
              <IconTrash width={14} height={14} /> {tr('runs.delete')}
            </button>
            <button className={`btn sm primary ${busy === 'trigger' ? 'busy' : ''}`} onClick={() => (params.length ? setDialog('trigger') : act('trigger'))} disabled={!!busy || !canWrite} title={canWrite ? (params.length ? tr('runs.startWithParams') : tr('pipelines.startRun')) : readOnlyHint()} data-testid="runs-trigger">
              <IconPlay /> {tr('common.trigger')}
            </button>
          </div>
        </div>
        <RunFilter query={query} fromText={filter.fromText} toText={filter.toText} problem={filter.problem} onAsk={ask} />
        {grid}
      </div>
      <RunDetail run={current} taskNames={taskNames} task={task} onTask={setTask} busy={canWrite ? busy : 'read-only'} onAct={(action, run) => setAsking({ action, run })} onRun={(r) => mutatePage((o) => o && { ...o, runs: upsert(o.runs, r) })} />
      {dialog === 'trigger' && (
        <TriggerDialog
          pipeline={name}
          params={params}
          onRun={(r) => {
            mutatePage((o) => o && { ...o, runs: upsert(o.runs, r) });
            select(r);
            toast('ok', tr('runs.created', { time: fmtTime(r.logicalTime) }));
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'backfill' && summary?.schedule && <BackfillDialog pipeline={name} schedule={summary.schedule} onDone={() => void page.reload()} onClose={() => setDialog(null)} />}
      {dialog === 'delete' && <DeletePipelineDialog pipeline={name} runs={runs.length} inFlight={runs.filter((r) => r.state === 'queued' || r.state === 'running').length} onDeleted={() => navigate(href('pipelines'))} onClose={() => setDialog(null)} />}
      {asking && (
        <ConfirmChanges
          title={kRunActionTitle[asking.action]()}
          what={kRunActionWhat[asking.action](fmtTime(asking.run.logicalTime))}
          changes={runActionChanges(asking.run, asking.action)}
          confirm={kRunActionTitle[asking.action]()}
          danger={asking.action === 'kill'}
          onConfirm={() => runAction(asking.action, asking.run)}
          onClose={() => setAsking(null)}
        />
      )}
      <RunList runs={runs} current={current} onSelect={select} />
    </div>
  );
}

function RunList({ runs, current, onSelect }: { runs: Run[]; current?: Run; onSelect: (r: Run) => void }) {
  const newest = runs.slice().reverse();
  return (
    <div className="card" style={{ gridColumn: '1 / 2' }}>
      <div className="card-head">
        <h2>{tr('runs.title')}</h2>
        <span className="small muted">{tr('runs.newestFirst')}</span>
      </div>
      <div className="table-scroll">
      <table className="table small run-list" data-testid="run-list">
        <thead>
          <tr>
            <th>{tr('runs.colLogical')}</th>
            <th>{tr('runs.colTrigger')}</th>
            <th>{tr('runs.colState')}</th>
            <th className="col-started">{tr('runs.colStarted')}</th>
            <th>{tr('runs.colDuration')}</th>
            <th>{tr('runs.colTasks')}</th>
          </tr>
        </thead>
        <tbody>
          {newest.map((r) => {
            const tasks = r.tasks ?? [];
            const ok = tasks.filter((t) => t.state === 'succeeded' || t.state === 'skipped').length;
            return (
              <tr key={r.logicalTime} onClick={() => onSelect(r)} style={{ cursor: 'pointer', background: r === current ? '#f1f4ff' : undefined }}>
                <td className="nowrap">{fmtTime(r.logicalTime)}</td>
                <td>
                  <span className={`tag ${r.trigger === 'manual' ? 'accent' : ''}`}>{r.trigger}</span>
                </td>
                <td>
                  <StateBadge state={r.state} />
                </td>
                <td className="nowrap col-started">{fmtShort(r.start)}</td>
                <td className="nowrap">{r.start ? fmtDuration(runDuration(r)) : '—'}</td>
                <td className="nowrap">
                  {ok} / {tasks.length}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      </div>
    </div>
  );
}

function specTasks(detail: PipelineDetail | undefined): string[] {
  const spec = detail?.spec;
  if (!isPlainObject(spec) || !isPlainObject(spec.spec) || !Array.isArray(spec.spec.tasks)) return [];
  return spec.spec.tasks.map((t) => String((t as { name?: unknown }).name ?? ''));
}

function upsert(runs: Run[], r: Run): Run[] {
  const out = runs.filter((x) => x.logicalTime !== r.logicalTime);
  out.push(r);
  return out.sort((a, b) => b.logicalTime.localeCompare(a.logicalTime));
}

function runDuration(r: Run, now = serverNow()): number {
  if (!r.start) return 0;
  return (r.end ? Date.parse(r.end) : now) - Date.parse(r.start);
}

function RunGrid({ runs, taskNames, current, task, onSelect }: { runs: Run[]; taskNames: string[]; current?: Run; task: string | null; onSelect: (r: Run, t?: string) => void }) {
  const max = Math.max(1, ...runs.map((r) => runDuration(r)));
  const cols = `minmax(140px, 220px) repeat(${runs.length}, 22px) 16px`;
  return (
    <div className="rgrid" style={{ gridTemplateColumns: cols }} data-testid="run-grid">
      <div className="hlabel">
        {tr('runs.gridDuration')}
        <br />
        {tr('runs.gridMax', { d: fmtDuration(max) })}
      </div>
      {runs.map((r) => (
        <div key={r.logicalTime} className={`head ${current === r ? 'sel' : ''}`}>
          <button
            className={`bg-${r.state}`}
            style={{ height: Math.max(4, (runDuration(r) / max) * 80) }}
            title={`${fmtTime(r.logicalTime)} · ${r.trigger} · ${stateLabel(r.state)} · ${fmtDuration(runDuration(r))}`}
            onClick={() => onSelect(r)}
            data-run={r.logicalTime}
            data-state={r.state}
            aria-label={`Run ${r.logicalTime}, ${r.state}`}
          />
        </div>
      ))}
      <div />
      {taskNames.map((t) => (
        <Row key={t} name={t} runs={runs} current={current} task={task} onSelect={onSelect} />
      ))}
    </div>
  );
}

function Row({ name, runs, current, task, onSelect }: { name: string; runs: Run[]; current?: Run; task: string | null; onSelect: (r: Run, t?: string) => void }) {
  return (
    <>
      <div className="tname" title={name}>
        {name}
      </div>
      {runs.map((r) => {
        const t = r.tasks?.find((x) => x.name === name);
        const sel = current === r && task === name;
        return (
          <div key={r.logicalTime} className={`cell ${current === r ? 'colsel' : ''}`}>
            {t ? (
              <button
                className={`bg-${t.state} ${sel ? 'sel' : ''}`}
                title={`${name} · ${stateLabel(t.state)}${t.attempts.length > 1 ? tr('runs.attempts', { n: t.attempts.length }) : ''}\n${fmtTime(r.logicalTime)}${lastReason(t) ? `\n${lastReason(t)}` : ''}`}
                onClick={() => onSelect(r, name)}
                data-task={name}
                data-run={r.logicalTime}
                data-state={t.state}
                aria-label={`${name} in run ${r.logicalTime}: ${t.state}${lastReason(t) ? ` (${lastReason(t)})` : ''}`}
              />
            ) : (
              <button className="none" disabled aria-hidden />
            )}
          </div>
        );
      })}
      <div />
    </>
  );
}

function RunDetail({ run, taskNames, task, onTask, busy, onAct, onRun }: { run?: Run; taskNames: string[]; task: string | null; onTask: (t: string | null) => void; busy: string | null; onAct: (w: RunAction, r: Run) => void; onRun: (r: Run) => void }) {
  const [now, setNow] = useState(serverNow);
  const running = run?.state === 'running' || run?.state === 'queued';
  useEffect(() => {
    if (!running) return;
    const id = window.setInterval(() => setNow(serverNow()), 1000);
    return () => window.clearInterval(id);
  }, [running]);
  if (!run) return <div className="card card-body muted" style={{ gridRow: 'span 2' }}>{tr('runs.select')}</div>;
  const t = task ? run.tasks?.find((x) => x.name === task) : undefined;
  return (
    <div className="card" data-testid="run-detail" data-state={run.state} style={{ gridRow: 'span 2' }}>
      <div className="card-head">
        <div>
          <h2>{fmtTime(run.logicalTime)}</h2>
          <div className="small muted">{tr('runs.logicalTime')} · {run.trigger}</div>
        </div>
        <div className="actions">
          <StateBadge state={run.state} />
        </div>
      </div>
      <div className="card-body">
        <dl className="run-facts" style={{ margin: '0 0 12px' }}>
          <dt>{tr('runs.started')}</dt>
          <dd>{fmtTime(run.start)}</dd>
          <dt>{tr('runs.ended')}</dt>
          <dd>{run.end ? fmtTime(run.end) : running ? <span className="s-running">{tr('runs.running')}</span> : '—'}</dd>
          <dt>{tr('runs.duration')}</dt>
          <dd>{fmtDuration(runDuration(run, now))}</dd>
          {run.params && Object.keys(run.params).length > 0 && (
            <>
              <dt>{tr('runs.params')}</dt>
              <dd data-testid="run-params">
                {Object.entries(run.params).map(([k, v]) => (
                  <code key={k} style={{ marginRight: 8 }}>
                    {k}={String(v)}
                  </code>
                ))}
              </dd>
            </>
          )}
        </dl>
        <div className="row" style={{ marginBottom: 14 }}>
          <button className="btn sm" disabled={!!busy || !runActionAllowed(run, 'rerun')} onClick={() => onAct('rerun', run)} title={busy === 'read-only' ? readOnlyHint() : tr('runs.rerunTitle')} data-testid="run-rerun">
            <IconRefresh /> {tr('runs.rerun')}
          </button>
          <button className="btn sm" disabled={!!busy || !runActionAllowed(run, 'mark-success')} onClick={() => onAct('mark-success', run)} title={busy === 'read-only' ? readOnlyHint() : tr('runs.markTitle')} data-testid="run-mark-success">
            <IconCheck /> {tr('runs.mark')}
          </button>
          <button className="btn sm danger" disabled={!!busy || !runActionAllowed(run, 'kill')} onClick={() => onAct('kill', run)} title={busy === 'read-only' ? readOnlyHint() : tr('runs.killTitle')} data-testid="run-kill">
            <IconClose width={14} height={14} /> {tr('runs.kill')}
          </button>
        </div>
        <h3 style={{ marginBottom: 4 }}>{tr('runs.tasksAndAttempts')}</h3>
        <Gantt run={run} taskNames={taskNames} now={now} selected={task} onTask={onTask} />
        {t && (
          <div style={{ marginTop: 8 }}>
            <div className="row" style={{ marginBottom: 6 }}>
              <b>{t.name}</b>
              <StateBadge state={t.state} />
            </div>
            <TaskActions pipeline={run.pipeline} run={run} task={t} now={now} canWrite={busy !== 'read-only'} onRun={onRun} />
          </div>
        )}
      </div>
    </div>
  );
}

function Gantt({ run, taskNames, now, selected, onTask }: { run: Run; taskNames: string[]; now: number; selected: string | null; onTask: (t: string) => void }) {
  const names = taskNames.filter((n) => run.tasks?.some((t) => t.name === n));
  const option = useMemo(() => {
    // [task row, asked for, end, state, attempt number, reason, work started, opacity]
    type Item = [number, number, number, string, number, string, number, number];
    const data: { value: Item }[] = [];
    let min = Infinity;
    let max = -Infinity;
    names.forEach((n, i) => {
      const t = run.tasks!.find((x) => x.name === n)!;
      t.attempts.forEach((a: Attempt, k) => {
        const s = Date.parse(a.start);
        if (!Number.isFinite(s)) return;
        const e = a.end ? Date.parse(a.end) : Math.max(now, s);
        const r = a.running ? Date.parse(a.running) : s;
        min = Math.min(min, s);
        max = Math.max(max, e);
        data.push({ value: [i, s, e, a.state, k + 1, a.reason ?? '', Number.isFinite(r) ? r : s, !selected || selected === n ? 1 : 0.45] });
      });
    });
    if (!Number.isFinite(min)) {
      min = run.start ? Date.parse(run.start) : now;
      max = min + 60000;
    }
    const pad = Math.max(1000, (max - min) * 0.03);
    return {
      animation: false,
      textStyle: { fontFamily: kFont },
      grid: { left: 8, right: 16, top: 8, bottom: 28, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
      tooltip: {
        formatter: (p: { value: Item }) => {
          const [i, s, e, st, k, reason, r] = p.value;
          const waited = r > s ? `<br/>${tr('runs.ganttWaited', { d: fmtDuration(r - s) })}` : '';
          return `<b>${names[i]}</b> · ${tr('runs.ganttAttempt', { k })}<br/>${stateLabel(st)} · ${fmtDuration(e - r)}${waited}<br/>${fmtShort(new Date(s).toISOString())} → ${fmtShort(new Date(e).toISOString())}${reason ? `<br/><i>${reason}</i>` : ''}`;
        },
      },
      xAxis: { type: 'time', min: min - pad, max: max + pad, axisLabel: { color: '#7a8499', fontSize: 11, hideOverlap: true }, splitLine: { lineStyle: { color: '#eef1f6' } } },
      yAxis: {
        type: 'category',
        data: names,
        inverse: true,
        axisTick: { show: false },
        axisLine: { lineStyle: { color: '#e4e7ee' } },
        axisLabel: { color: '#4a5468', fontSize: 11.5, width: 120, overflow: 'truncate', fontWeight: (v: string) => (v === selected ? 700 : 400) },
      },
      series: [
        {
          type: 'custom',
          encode: { x: [1, 2], y: 0 },
          renderItem: (params: CustomSeriesRenderItemParams, api: CustomSeriesRenderItemAPI) => {
            const row = api.value(0);
            const h = (api.size!([0, 1]) as number[])[1] * 0.56;
            const cs = params.coordSys as unknown as { x: number; y: number; width: number; height: number };
            const color = kStateColor[String(api.value(3))] ?? '#999';
            const opacity = Number(api.value(7));
            const bar = (from: number, to: number, alpha: number) => {
              const a = api.coord([from, row]);
              const b = api.coord([to, row]);
              const shape = echarts.graphic.clipRectByRect({ x: a[0], y: a[1] - h / 2, width: Math.max(2, b[0] - a[0]), height: h }, { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
              return shape && { type: 'rect' as const, shape: { ...shape, r: 3 }, style: { fill: color, opacity: opacity * alpha } };
            };
            const s = Number(api.value(1));
            const r = Number(api.value(6));
            const e = Number(api.value(2));
            // The time an attempt waited for the cluster (asked for, not yet running) is drawn pale.
            const children = [r > s ? bar(s, Math.min(r, e), 0.3) : null, bar(Math.max(s, Math.min(r, e)), e, 1)].filter((c) => !!c);
            return { type: 'group', children };
          },
          data,
        },
      ],
    };
  }, [run, names.join('|'), now, selected]);
  const onClick = useCallback((p: unknown) => {
    const v = (p as { value?: number[] }).value;
    if (v) onTask(names[v[0]]);
  }, [names.join('|'), onTask]);
  return <Chart option={option} height={Math.max(140, names.length * 30 + 44)} onClick={onClick} testId="gantt" />;
}
