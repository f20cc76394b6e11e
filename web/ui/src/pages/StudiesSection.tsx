// The what-if page's "Sweeps and plans": the shipped sweeps and capacity plans of the server's
// scenarios folder, a Run button each, the progress of the one running, then its text report
// and charts exactly as `gantry sweep` / `gantry plan` print and draw them (the server makes
// them with the CLI's own code; this only shows them).

import { useCallback, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { useLiveEvents } from '../api/events';
import { mutate, useResource } from '../api/resource';
import { readOnlyHint, useCanWrite } from '../api/session';
import { cancelStudy, fetchCatalog, fetchStudies, fetchStudy, startStudy } from '../api/studies';
import type { Study, StudyChart, StudyFile } from '../api/types';
import { IconPlay } from '../components/icons';
import { Banner, Skeleton, StateBadge } from '../components/ui';
import { t as tr, tNodes } from '../i18n';
import { applyStudyEvent, chartTitle, studyCancelledText, studyErrorLines, studyFraction, studyInProgress, studyProgressText, studySummary, svgDataUrl } from '../model/studies';
import { fmtShort, pct } from '../format';

interface Shown {
  study: Study | null;
  // A run the server refused (its lines, as the CLI prints them), or a failed request.
  refused: { name: string; lines: string[] } | null;
}

// Kept for the session: leaving the page and coming back shows the same report.
let kept: Shown = { study: null, refused: null };

const badgeState = (s: Study) => (s.state === 'done' ? 'succeeded' : s.state === 'cancelled' ? 'killed' : s.state);

export default function StudiesSection() {
  const catalog = useResource<StudyFile[]>('/sweeps/catalog+/plans/catalog', {
    fetcher: async () => [...(await fetchCatalog('Sweep')), ...(await fetchCatalog('Plan'))],
  });
  const canWrite = useCanWrite();
  const [shown, setShownState] = useState<Shown>(kept);
  const setShown = useCallback((f: (s: Shown) => Shown) => {
    setShownState((old) => (kept = f(old)));
  }, []);
  const study = shown.study;
  // What the server keeps: a page opened while a sweep runs shows it.
  const recent = useResource<Study[]>('/sweeps+/plans', { fetcher: fetchStudies });
  const reloadRecent = recent.reload;
  useEffect(() => {
    void reloadRecent().then((list) => {
      const current = list?.find(studyInProgress);
      if (current && !kept.study) setShown(() => ({ study: current, refused: null }));
    });
  }, [reloadRecent, setShown]);

  // The whole study once it has ended (events and the list carry no report).
  const refresh = useCallback(
    async (s: Study) => {
      try {
        const full = await fetchStudy(s.kind, s.id);
        setShown((old) => (old.study?.id === full.id ? { ...old, study: full } : old));
      } catch (e) {
        setShown((old) => (old.study?.id === s.id ? { ...old, refused: { name: s.name, lines: [(e as Error).message] } } : old));
      }
    },
    [setShown],
  );

  // Progress: live events, and polling as a fallback.
  useLiveEvents(['sweep', 'plan'], (_, data) => {
    mutate<Study[]>('/sweeps+/plans', (list) => list?.map((x) => applyStudyEvent(x, data) ?? x));
    const before = kept.study;
    const after = applyStudyEvent(before, data);
    if (after === before || !after) return;
    setShown((old) => ({ ...old, study: after }));
    if (!studyInProgress(after)) {
      void refresh(after);
      void reloadRecent();
    }
  });
  const runningId = studyInProgress(study) ? study!.id : '';
  useEffect(() => {
    if (!runningId) return;
    const id = window.setInterval(() => {
      const s = kept.study;
      if (s && s.id === runningId && studyInProgress(s)) void refresh(s);
    }, 1000);
    return () => window.clearInterval(id);
  }, [runningId, refresh]);

  const run = async (f: StudyFile) => {
    setShown(() => ({ study: null, refused: null }));
    try {
      const s = await startStudy(f.kind, f.name);
      setShown(() => ({ study: s, refused: null }));
      void reloadRecent();
    } catch (e) {
      const lines = e instanceof ApiError ? studyErrorLines(e.message, e.body) : [(e as Error).message];
      setShown(() => ({ study: null, refused: { name: f.name, lines } }));
    }
  };
  const cancel = async (s: Study) => {
    try {
      await cancelStudy(s.kind, s.id);
      await refresh(s);
    } catch (e) {
      setShown((old) => ({ ...old, refused: { name: s.name, lines: [(e as Error).message] } }));
    }
  };

  const files = catalog.data;
  return (
    <section className="studies" data-testid="studies">
      <div className="section-head">
        <h2>{tr('studies.title')}</h2>
        <div className="sub">{tNodes('studies.sub', { sweep: <code>gantry sweep</code>, plan: <code>gantry plan</code> })}</div>
      </div>
      {catalog.error && !files && <Banner>{tr('studies.catalogFailed', { message: catalog.error.message })}</Banner>}
      <div className="study-catalog">
        {!files && !catalog.error && [0, 1].map((i) => <Skeleton key={i} h={92} />)}
        {files?.length === 0 && <div className="card empty small">{tr('studies.none')}</div>}
        {files?.map((f) => (
          <div key={`${f.kind}/${f.name}`} className="card study-file" data-study={f.name}>
            <div className="study-file-head">
              <span className={`tag ${f.kind === 'Sweep' ? 'accent' : 'good'}`}>{f.kind === 'Sweep' ? 'Sweep' : 'Capacity plan'}</span>
              <b className="study-name">{f.name}</b>
              <button className="btn sm primary" style={{ marginLeft: 'auto' }} onClick={() => void run(f)} disabled={!!f.error || studyInProgress(study) || !canWrite} title={canWrite ? (f.error ? tr('studies.cannotRun') : undefined) : readOnlyHint()} data-testid={`run-study-${f.name}`}>
                <IconPlay /> Run
              </button>
            </div>
            {studySummary(f) && <div className="small study-summary">{studySummary(f)}</div>}
            {f.description && <div className="small muted study-desc" title={f.description}>{f.description}</div>}
            <div className="small muted mono">{f.file}</div>
            {f.error && <Banner>{f.error}</Banner>}
          </div>
        ))}
      </div>
      {shown.refused && (
        <div style={{ marginTop: 12 }} data-testid="study-refused">
          <Banner>
            <div>The server refused to run {shown.refused.name}:</div>
            <pre className="study-errors mono">{shown.refused.lines.join('\n')}</pre>
          </Banner>
        </div>
      )}
      {study && <StudyResult s={study} onCancel={() => void cancel(study)} onClose={() => setShown(() => ({ study: null, refused: null }))} />}
      <Recent list={recent.data} shownId={study?.id} onShow={(s) => void refresh(s).then(() => undefined)} onPick={(s) => setShown(() => ({ study: s, refused: null }))} />
    </section>
  );
}

// The sweeps and plans the server keeps (it forgets the oldest): any of them shown again.
function Recent({ list, shownId, onPick, onShow }: { list?: Study[]; shownId?: string; onPick: (s: Study) => void; onShow: (s: Study) => void }) {
  if (!list || list.length === 0) return null;
  return (
    <div className="card history" style={{ marginTop: 16 }} data-testid="recent-studies">
      <div className="card-head">
        <h2>{tr('studies.recent')}</h2>
        <span className="small muted">on this server, kept in its memory</span>
      </div>
      <table className="table small">
        <thead>
          <tr>
            <th>{tr('studies.colName')}</th>
            <th>{tr('studies.colKind')}</th>
            <th>{tr('studies.colState')}</th>
            <th>{tr('studies.colProgress')}</th>
            <th>{tr('studies.colStarted')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.slice(0, 10).map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.kind === 'Sweep' ? 'sweep' : 'capacity plan'}</td>
              <td>
                <StateBadge state={badgeState(s)} label={s.state} />
              </td>
              <td>
                {s.done} of {s.total} {s.kind === 'Sweep' ? 'runs' : 'steps'}
              </td>
              <td>{fmtShort(s.created)}</td>
              <td style={{ textAlign: 'right' }}>
                <button
                  className="btn sm"
                  disabled={s.id === shownId}
                  onClick={() => {
                    onPick(s);
                    onShow(s);
                  }}
                >
                  {tr('studies.show')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// One chart at a time, at the size the CLI draws it, with a switch between them (a sweep has
// one per metric).
function Charts({ s, charts }: { s: Study; charts: StudyChart[] }) {
  const [at, setAt] = useState(0);
  const c = charts[Math.min(at, charts.length - 1)];
  return (
    <div className="study-charts">
      {charts.length > 1 && (
        <div className="row" style={{ marginBottom: 10 }}>
          <span className="small muted">{tr('studies.chart')}</span>
          <div className="segmented" role="tablist">
            {charts.map((x, i) => (
              <button key={x.name} role="tab" aria-selected={x === c} className={x === c ? 'on' : ''} onClick={() => setAt(i)} data-testid={`chart-tab-${chartTitle(x)}`}>
                {chartTitle(x)}
              </button>
            ))}
          </div>
        </div>
      )}
      <figure className="study-chart" data-chart={c.name}>
        <img src={svgDataUrl(c.svg)} alt={`${s.name}: ${chartTitle(c)}`} />
      </figure>
    </div>
  );
}

function StudyResult({ s, onCancel, onClose }: { s: Study; onCancel: () => void; onClose: () => void }) {
  const canWrite = useCanWrite();
  const running = studyInProgress(s);
  return (
    <div className="card study-result" data-testid="study-result" data-state={s.state}>
      <div className="card-head">
        <span className={`tag ${s.kind === 'Sweep' ? 'accent' : 'good'}`}>{s.kind === 'Sweep' ? 'Sweep' : 'Capacity plan'}</span>
        <h2>{s.name}</h2>
        <StateBadge state={badgeState(s)} label={s.state} />
        <span className="small muted">
          {s.kind === 'Sweep' ? `${s.done.toLocaleString('en-US')} of ${s.total.toLocaleString('en-US')} runs` : `${s.done} of ${s.total} forecast steps`}
        </span>
        <div className="actions">
          {running ? (
            <button className="btn sm" onClick={onCancel} disabled={!canWrite} title={canWrite ? tr('studies.stopsAfter') : readOnlyHint()} data-testid="cancel-study">
              {tr('common.cancel')}
            </button>
          ) : (
            <button className="btn sm ghost" onClick={onClose}>
              {tr('common.close')}
            </button>
          )}
        </div>
      </div>
      <div className="card-body">
        {running && (
          <div data-testid="study-progress">
            <div className="row small muted" style={{ marginBottom: 4 }}>
              {studyProgressText(s, tr)} <span style={{ marginLeft: 'auto' }}>{pct(studyFraction(s), 0)}</span>
            </div>
            <div className="progress study-progress">
              <div style={{ width: pct(studyFraction(s)) }} />
            </div>
          </div>
        )}
        {s.state === 'failed' && <Banner>{s.error ?? 'The run failed.'}</Banner>}
        {s.state === 'cancelled' && <div className="small muted">{studyCancelledText(s, tr)}</div>}
        {s.state === 'done' && <StudyReport s={s} />}
      </div>
    </div>
  );
}

// A finished sweep's or plan's charts and text report, as the CLI draws and prints them (also
// the what-if page's distributed sweeps, DistributedSweepsSection).
// `caption` replaces the line above the report (a distributed sweep's figures so far).
export function StudyReport({ s, caption }: { s: Study; caption?: ReactNode }) {
  return (
    <>
      {s.charts && s.charts.length > 0 && <Charts s={s} charts={s.charts} />}
      {s.report !== null && (
        <div className="study-report">
          <div className="small muted" style={{ marginBottom: 6 }}>
            {caption ?? (
              <>
                Report, as <code>gantry {s.kind === 'Sweep' ? 'sweep' : 'plan'} {s.file}</code> prints it
              </>
            )}
          </div>
          <pre className="mono" data-testid="study-report">{s.report}</pre>
        </div>
      )}
    </>
  );
}
