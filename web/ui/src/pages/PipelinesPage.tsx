import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, enc } from '../api/client';
import { useLiveEvents } from '../api/events';
import { mutate, useResource } from '../api/resource';
import { readOnlyHint, serverNow, useCanWrite } from '../api/session';
import type { PipelineSummary, Run } from '../api/types';
import { IconEditor, IconPlay, IconPlus, IconRuns, IconUpload } from '../components/icons';
import { Banner, SkeletonRows, StateBadge, Switch, useToast } from '../components/ui';
import { fmtRelative, fmtTime } from '../format';
import { describeCron } from '../model/cron';
import { facets, filterFromQuery, filterToQuery, isFiltered, kNoFilter, matchesFilter, type PipelineFilter } from '../model/pipelineFilter';
import { href, navigate, useRoute } from '../router';
import { t as tr, tNodes, useT } from '../i18n';

const kKey = '/pipelines';
// The importer brings the YAML library: load it when asked for.
const ImportDialog = lazy(() => import('../editor/ImportDialog').then((m) => ({ default: m.ImportDialog })));

export function PipelinesPage() {
  const { data, error, reload } = useResource<{ pipelines: PipelineSummary[] }>(kKey, { refreshMs: 30000 });
  const toast = useToast();
  const t = useT();
  const [busy, setBusy] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const canWrite = useCanWrite();
  const reloadTimer = useRef<number | null>(null);

  // A pipeline event carries its new summary (or {name, deleted: true}); a run event changes a
  // last run or the runs in flight. Events are applied together every 200 ms, and the list is
  // read again after a burst (runs in flight and next ticks are the server's to count).
  const pending = useRef<{ type: string; payload: unknown }[]>([]);
  const flushTimer = useRef<number | null>(null);
  useEffect(() => () => {
    for (const id of [flushTimer.current, reloadTimer.current]) if (id !== null) window.clearTimeout(id);
  }, []);
  useLiveEvents(['pipeline', 'run', 'reset'], (type, payload) => {
    if (type === 'reset') {
      pending.current = [];
      void reload();
      return;
    }
    pending.current.push({ type, payload });
    if (flushTimer.current === null)
      flushTimer.current = window.setTimeout(() => {
        flushTimer.current = null;
        const events = pending.current;
        pending.current = [];
        mutate<{ pipelines: PipelineSummary[] }>(kKey, (old) => old && { pipelines: events.reduce((list, e) => applyEvent(list, e.type, e.payload), old.pipelines) });
      }, 200);
    if (type === 'run' && reloadTimer.current === null)
      reloadTimer.current = window.setTimeout(() => {
        reloadTimer.current = null;
        void reload();
      }, 800);
  });

  // The search and filters, kept in the address (#/pipelines?q=etl&state=failing).
  const route = useRoute();
  const filter = filterFromQuery(route.query);
  const setFilter = (patch: Partial<PipelineFilter>) => {
    const q = filterToQuery({ ...filter, ...patch });
    navigate(href('pipelines') + (q ? `?${q}` : ''), true);
  };
  const all = data?.pipelines;
  const choices = useMemo(() => facets(all ?? []), [all]);
  const pipelines = useMemo(() => all?.filter((p) => matchesFilter(p, filter)), [all, filter.q, filter.state, filter.tag, filter.owner]); // eslint-disable-line react-hooks/exhaustive-deps
  const kpis = useMemo(() => {
    if (!all) return null;
    return {
      total: all.length,
      scheduled: all.filter((p) => p.schedule && !p.paused).length,
      paused: all.filter((p) => p.paused).length,
      inFlight: all.reduce((s, p) => s + p.runsInFlight, 0),
      failing: all.filter((p) => p.lastRun?.state === 'failed').length,
    };
  }, [all]);
  const filtered = isFiltered(filter);

  const setPaused = async (p: PipelineSummary, paused: boolean) => {
    setBusy(p.name);
    // Optimistic: the switch moves at once, and back if the server refuses.
    mutate<{ pipelines: PipelineSummary[] }>(kKey, (old) => old && { pipelines: old.pipelines.map((x) => (x.name === p.name ? { ...x, paused } : x)) });
    try {
      const s = await api<PipelineSummary>(`/pipelines/${enc(p.name)}/${paused ? 'pause' : 'resume'}`, { method: 'POST' });
      mutate<{ pipelines: PipelineSummary[] }>(kKey, (old) => old && { pipelines: old.pipelines.map((x) => (x.name === p.name ? s : x)) });
      toast('ok', t(paused ? 'pipelines.toastPaused' : 'pipelines.toastResumed', { name: p.name }));
    } catch (e) {
      mutate<{ pipelines: PipelineSummary[] }>(kKey, (old) => old && { pipelines: old.pipelines.map((x) => (x.name === p.name ? { ...x, paused: !paused } : x)) });
      toast('error', actionError(e));
    } finally {
      setBusy(null);
    }
  };

  const trigger = async (p: PipelineSummary) => {
    setBusy(p.name);
    try {
      const run = await api<Run>(`/pipelines/${enc(p.name)}/trigger`, { method: 'POST' });
      toast(
        'ok',
        <>
          {tNodes('pipelines.toastRun', { name: <b>{p.name}</b> }, { time: fmtTime(run.logicalTime) })} <a href={href('runs', p.name) + `?run=${enc(run.logicalTime)}`}>{t('pipelines.watch')}</a>
        </>,
      );
      void reload();
    } catch (e) {
      toast('error', actionError(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>{t('pipelines.title')}</h1>
          <div className="sub">{t('pipelines.sub')}</div>
        </div>
        <div className="actions">
          <button className="btn" onClick={() => setImporting(true)} disabled={!canWrite} title={canWrite ? t('pipelines.importTitle') : readOnlyHint()}>
            <IconUpload /> {t('pipelines.import')}
          </button>
          <button className="btn primary" onClick={() => navigate(href('editor', 'new'))} disabled={!canWrite} title={canWrite ? undefined : readOnlyHint()} data-testid="new-pipeline">
            <IconPlus /> {t('pipelines.new')}
          </button>
        </div>
      </div>

      <div className="kpis">
        <Kpi id="Pipelines" label={t('pipelines.kpiPipelines')} value={kpis?.total} detail={kpis ? t('pipelines.kpiScheduled', { n: kpis.scheduled }) : undefined} />
        <Kpi id="Runs in flight" label={t('pipelines.kpiInFlight')} value={kpis?.inFlight} detail={t('pipelines.kpiInFlightDetail')} />
        <Kpi id="Last run failed" label={t('pipelines.kpiFailing')} value={kpis?.failing} detail={filter.state === 'failing' ? t('pipelines.shownBelow') : t('pipelines.kpiFailingDetail')} warn={!!kpis?.failing} onClick={kpis?.failing ? () => setFilter({ state: filter.state === 'failing' ? '' : 'failing' }) : undefined} on={filter.state === 'failing'} />
        <Kpi id="Paused" label={t('pipelines.kpiPaused')} value={kpis?.paused} detail={filter.state === 'paused' ? t('pipelines.shownBelow') : t('pipelines.kpiPausedDetail')} onClick={kpis?.paused ? () => setFilter({ state: filter.state === 'paused' ? '' : 'paused' }) : undefined} on={filter.state === 'paused'} />
      </div>

      {error && !data && <Banner>{t('pipelines.loadFailed', { message: error.message })}</Banner>}
      {/* An unreachable server is said once, for every page, by the StaleBanner. */}
      {error && data && !(error instanceof ApiError && error.status === 0) && <Banner kind="warn">{t('common.refreshFailed', { message: error.message })}</Banner>}

      <div className="filters" role="search" style={{ marginTop: error ? 12 : 0 }}>
        <input className="input search" type="search" placeholder={t('pipelines.search')} aria-label={t('pipelines.search')} value={filter.q} onChange={(e) => setFilter({ q: e.target.value })} data-testid="pipeline-search" />
        <select className="input" aria-label={t('pipelines.state')} value={filter.state} onChange={(e) => setFilter({ state: e.target.value as PipelineFilter['state'] })} data-testid="pipeline-state">
          <option value="">{t('pipelines.anyState')}</option>
          <option value="active">{t('pipelines.active')}</option>
          <option value="paused">{t('pipelines.paused')}</option>
          <option value="failing">{t('pipelines.failing')}</option>
        </select>
        {(choices.tags.length > 0 || filter.tag) && (
          <select className="input" aria-label={t('pipelines.tag')} value={filter.tag} onChange={(e) => setFilter({ tag: e.target.value })} data-testid="pipeline-tag">
            <option value="">{t('pipelines.anyTag')}</option>
            {[...new Set([...choices.tags, ...(filter.tag ? [filter.tag] : [])])].map((tag) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        )}
        {(choices.owners.length > 0 || filter.owner) && (
          <select className="input" aria-label={t('pipelines.owner')} value={filter.owner} onChange={(e) => setFilter({ owner: e.target.value })} data-testid="pipeline-owner">
            <option value="">{t('pipelines.anyOwner')}</option>
            {[...new Set([...choices.owners, ...(filter.owner ? [filter.owner] : [])])].map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        )}
        {filtered && all && (
          <>
            <span className="small muted" data-testid="pipeline-count">
              {t('pipelines.countOf', { n: pipelines!.length, total: all.length })}
            </span>
            <button className="btn sm ghost" onClick={() => setFilter(kNoFilter)}>
              {t('common.clear')}
            </button>
          </>
        )}
      </div>

      <div className="card">
        <table className="table" data-testid="pipelines-table">
          <thead>
            <tr>
              <th>{t('pipelines.colPipeline')}</th>
              <th>{t('pipelines.colSchedule')}</th>
              <th>{t('pipelines.colNextTicks')}</th>
              <th>{t('pipelines.colTasks')}</th>
              <th>{t('pipelines.colLastRun')}</th>
              <th>{t('pipelines.colInFlight')}</th>
              <th>{t('pipelines.colActive')}</th>
              <th style={{ textAlign: 'right' }}>{t('pipelines.colActions')}</th>
            </tr>
          </thead>
          <tbody>
            {!pipelines && <SkeletonRows rows={6} cols={8} />}
            {pipelines?.map((p) => (
              <tr key={p.name} data-pipeline={p.name}>
                <td className="name">
                  <a href={href('editor', p.name)}>{p.name}</a>
                  <div className="small muted">
                    {p.namespace}
                    {p.owner && <> · {p.owner}</>}
                  </div>
                  {!!p.tags?.length && (
                    <div className="pipeline-tags">
                      {p.tags.map((tag) => (
                        <button key={tag} type="button" className={`tag ${filter.tag === tag ? 'accent' : ''}`} onClick={() => setFilter({ tag: filter.tag === tag ? '' : tag })} title={t('pipelines.taggedOnly', { tag })}>
                          {tag}
                        </button>
                      ))}
                    </div>
                  )}
                </td>
                <td>
                  {p.schedule ? (
                    <>
                      <code>{p.schedule.cron}</code>
                      <div className="small muted">
                        {describeCron(p.schedule.cron)} · {p.schedule.timezone}
                      </div>
                    </>
                  ) : (
                    <span className="muted">{t('pipelines.manualOnly')}</span>
                  )}
                </td>
                <td>
                  {p.paused ? (
                    <span className="tag warn">{t('pipelines.pausedTag')}</span>
                  ) : upcoming(p).length ? (
                    <div className="ticks" title={upcoming(p).map((x) => fmtTime(x, p.schedule?.timezone)).join('\n')}>
                      <span className="first">{fmtTime(upcoming(p)[0], p.schedule?.timezone ?? 'UTC')}</span>
                      <span className="small muted">
                        {fmtRelative(upcoming(p)[0])}
                        {upcoming(p).length > 1 && ` · ${t('pipelines.then', { when: fmtRelative(upcoming(p)[1]) })}`}
                      </span>
                    </div>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td>{p.tasks}</td>
                <td>
                  {p.lastRun ? (
                    <a href={href('runs', p.name) + `?run=${enc(p.lastRun.logicalTime)}`} style={{ display: 'inline-flex', flexDirection: 'column', gap: 2 }}>
                      <StateBadge state={p.lastRun.state} />
                      <span className="small muted">{fmtRelative(p.lastRun.logicalTime)}</span>
                    </a>
                  ) : (
                    <span className="muted">{t('pipelines.neverRun')}</span>
                  )}
                </td>
                <td>{p.runsInFlight > 0 ? <StateBadge state="running" label={t('pipelines.nRunning', { n: p.runsInFlight })} /> : <span className="muted">0</span>}</td>
                <td>
                  <Switch on={!p.paused} disabled={busy === p.name || !canWrite} onChange={(on) => setPaused(p, !on)} label={t(p.paused ? 'pipelines.resume' : 'pipelines.pause', { name: p.name })} />
                </td>
                <td style={{ textAlign: 'right' }}>
                  <div className="row" style={{ justifyContent: 'flex-end' }}>
                    <button className="btn sm" onClick={() => trigger(p)} disabled={busy === p.name || !canWrite} title={canWrite ? t('pipelines.startRun') : readOnlyHint()} data-testid={`trigger-${p.name}`}>
                      <IconPlay /> {t('common.trigger')}
                    </button>
                    <a className="btn sm ghost" href={href('runs', p.name)} title={t('common.runs')}>
                      <IconRuns />
                    </a>
                    <a className="btn sm ghost" href={href('editor', p.name)} title={t('common.edit')}>
                      <IconEditor />
                    </a>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {filtered && pipelines && pipelines.length === 0 && all!.length > 0 && (
          <div className="empty" data-testid="pipelines-none-match">
            <h2>{t('pipelines.noneMatch')}</h2>
            <div>{t('pipelines.noneMatchDetail', { n: all!.length })}</div>
            <button className="btn" onClick={() => setFilter(kNoFilter)}>
              {t('pipelines.clearFilters')}
            </button>
          </div>
        )}
        {all && all.length === 0 && (
          <div className="empty">
            <h2>{t('pipelines.empty')}</h2>
            <div>{tNodes('pipelines.emptyDetail', { cmd: <code>gantry pipeline apply</code> })}</div>
            <button className="btn primary" onClick={() => navigate(href('editor', 'new'))}>
              <IconPlus /> {t('pipelines.new')}
            </button>
          </div>
        )}
      </div>
      {importing && (
        <Suspense fallback={null}>
          <ImportDialog onClose={() => setImporting(false)} />
        </Suspense>
      )}
    </div>
  );
}

// The next ticks the server listed that are still ahead of its clock (the list is read now and
// then; at --speed 60 a tick an hour away passes in a minute).
export function upcoming(p: PipelineSummary): string[] {
  const now = serverNow();
  return p.nextTicks.filter((t) => Date.parse(t) > now);
}

function applyEvent(list: PipelineSummary[], type: string, payload: unknown): PipelineSummary[] {
  if (type === 'pipeline') {
    const p = payload as PipelineSummary & { deleted?: boolean };
    if (p.deleted) return list.filter((x) => x.name !== p.name);
    if (!Array.isArray(p.nextTicks)) return list;
    const exists = list.some((x) => x.name === p.name);
    return exists ? list.map((x) => (x.name === p.name ? p : x)) : [...list, p].sort((a, b) => a.name.localeCompare(b.name));
  }
  // Runs in flight follow too until the list is read again: a new run (its event has a
  // trigger) that is queued or running is one more, a run that ends one fewer.
  const r = payload as Run;
  const created = 'trigger' in r;
  const inFlight = r.state === 'queued' || r.state === 'running';
  const delta = created ? (inFlight ? 1 : 0) : inFlight ? 0 : -1;
  return list.map((x) =>
    x.name !== r.pipeline
      ? x
      : {
          ...x,
          runsInFlight: Math.max(0, x.runsInFlight + delta),
          lastRun: !x.lastRun || x.lastRun.logicalTime <= r.logicalTime ? { logicalTime: r.logicalTime, state: r.state } : x.lastRun,
        },
  );
}

// `onClick`: the figure filters the list below to what it counts (again: all pipelines).
// `id`: the figure's English name, kept in data-kpi whatever the language (the browser test's handle).
function Kpi({ id, label, value, detail, warn, onClick, on }: { id: string; label: string; value?: number; detail?: string; warn?: boolean; onClick?: () => void; on?: boolean }) {
  return (
    <div
      className={`card kpi ${onClick ? 'clickable' : ''} ${on ? 'on' : ''}`}
      role={onClick ? 'button' : undefined}
      tabIndex={onClick ? 0 : undefined}
      aria-pressed={onClick ? !!on : undefined}
      onClick={onClick}
      onKeyDown={onClick ? (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), onClick()) : undefined}
      data-kpi={id}
    >
      <h3>{label}</h3>
      <div className="v" style={warn ? { color: 'var(--danger)' } : undefined}>
        {value === undefined ? <div className="skeleton" style={{ width: 48, height: 28 }} /> : value}
      </div>
      {detail && <div className="d">{detail}</div>}
    </div>
  );
}

export function actionError(e: unknown): string {
  const err = e as ApiError;
  if (err.status === 403) return tr('error.readOnly');
  if (err.status === 409) return tr('error.conflict', { message: err.message });
  return err.message ?? String(e);
}
