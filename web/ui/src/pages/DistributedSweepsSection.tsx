// The what-if page's "Sweeps on Kubernetes": the user's own sweeps run by the pods of a
// Kubernetes Indexed Job, coordinated by this server (`gantry sweep FILE --on kubernetes`).
// Each with its state, its runs filling in live from the `distributed-sweep` events (no polling),
// its shards and every shard failure's message; Cancel for a running one (with what it does and
// the command that deletes the Job); a done one's report and charts, drawn by StudiesSection's
// own StudyReport. The view components take plain props (test/distributedSweepsView.test.tsx).

import { useCallback, useEffect, useRef, useState } from 'react';
import { cancelDistributedSweep, fetchDistributedSweep, fetchDistributedSweeps, kDistributedSweepsKey } from '../api/distributedSweeps';
import { useLiveEvents } from '../api/events';
import { mutate, useResource } from '../api/resource';
import { readOnlyHint, useCanWrite } from '../api/session';
import type { DistributedSweep } from '../api/types';
import { Banner, Modal, Skeleton, StateBadge, useToast } from '../components/ui';
import { t as tr, tNodes } from '../i18n';
import { fmtShort, fmtTime, pct } from '../format';
import { applyDistributedSweepEvent, asStudy, defaultOpenSweep, detailIsCurrent, parseDistributedSweep, cancelCommand, cancelDialogLines, failedShardsText, sweepBadgeState, sweepFraction, sweepRunsInShardsText, sweepRunsText } from '../model/distributedSweeps';
import { StudyReport } from './StudiesSection';

// Kept for the session: the sweep whose report is open (null: the newest done one), and the
// done sweeps fetched with their results (the list and the events carry none).
let keptOpen: string | null = null;
const results = new Map<string, DistributedSweep>();

export default function DistributedSweepsSection() {
  const sweeps = useResource<DistributedSweep[]>(kDistributedSweepsKey, { fetcher: fetchDistributedSweeps });
  const canWrite = useCanWrite();
  const toast = useToast();
  const [chosen, setChosenState] = useState<string | null>(keptOpen);
  const setChosen = (id: string | null) => setChosenState((keptOpen = id));
  const [full, setFull] = useState<Map<string, DistributedSweep>>(results);
  const [detailError, setDetailError] = useState<{ id: string; message: string } | null>(null);
  const [cancelling, setCancelling] = useState<DistributedSweep | null>(null);
  const [busy, setBusy] = useState(false);
  const reload = sweeps.reload;

  const list = sweeps.data;
  // The sweep open below the list: the one chosen (until it is cancelled), else the newest not
  // cancelled.
  const open = (chosen ? list?.find((s) => s.id === chosen && s.state !== 'cancelled') : null) ?? defaultOpenSweep(list);
  const openRef = useRef(open);
  openRef.current = open;

  // The open sweep's detail (GET /distributed-sweeps/{id}): a done one's report once; a running
  // one's figures so far, fetched again when an event says its runs moved, at most one request
  // at a time and one a second (a thousand pods post many runs a second). Event-driven: no
  // polling.
  const fetching = useRef<{ id: string; at: number; busy: boolean; again: boolean; timer: number | null }>({ id: '', at: 0, busy: false, again: false, timer: null });
  const loadDetail = useCallback(async (id: string) => {
    const f = fetching.current;
    if (f.busy && f.id === id) {
      f.again = true; // an event during the request: ask once more after it
      return;
    }
    const wait = f.id === id ? f.at + 1000 - Date.now() : 0;
    if (wait > 0) {
      if (f.timer === null)
        f.timer = window.setTimeout(() => {
          f.timer = null;
          void loadDetail(id);
        }, wait);
      return;
    }
    Object.assign(f, { id, at: Date.now(), busy: true, again: false });
    try {
      const s = await fetchDistributedSweep(id);
      results.set(id, s);
      setFull(new Map(results));
      setDetailError(null);
    } catch (e) {
      setDetailError({ id, message: (e as Error).message });
    } finally {
      f.busy = false;
    }
    if (f.again) void loadDetail(id);
  }, []);
  useEffect(
    () => () => {
      if (fetching.current.timer !== null) window.clearTimeout(fetching.current.timer);
    },
    [],
  );
  const detail = open ? full.get(open.id) : undefined;
  const needsDetail = open && open.state !== 'cancelled' && !detailIsCurrent(open, detail) ? open.id : '';
  useEffect(() => {
    if (needsDetail) void loadDetail(needsDetail);
  }, [needsDetail, loadDetail]);

  // Live: each event updates its sweep in place (a new one appears at the top), and the open
  // running sweep's figures follow. A `reset` (the server's event buffer lost what was missed)
  // reloads the list.
  useLiveEvents(['distributed-sweep', 'reset'], (type, data) => {
    if (type === 'reset') {
      void reload();
      return;
    }
    mutate<DistributedSweep[]>(kDistributedSweepsKey, (l) => applyDistributedSweepEvent(l, data));
    const e = parseDistributedSweep(data);
    const o = openRef.current;
    if (e && o && e.id === o.id && o.state === 'running') void loadDetail(e.id);
  });

  const confirmCancel = async () => {
    const s = cancelling;
    if (!s) return;
    setBusy(true);
    try {
      const after = await cancelDistributedSweep(s.id);
      mutate<DistributedSweep[]>(kDistributedSweepsKey, (l) => applyDistributedSweepEvent(l, after));
      toast('ok', <CancelledToast s={after} />, 12000);
      setCancelling(null);
    } catch (e) {
      toast('error', tr('dsweeps.cancelFailed', { name: s.name, message: (e as Error).message }), 10000);
      setCancelling(null);
      void reload();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="studies dsweeps" data-testid="distributed-sweeps">
      <div className="section-head">
        <h2>{tr('dsweeps.title')}</h2>
        <div className="sub">
          {tNodes('dsweeps.sub', { cmd: <code>gantry sweep</code> })}
        </div>
      </div>
      {sweeps.error && !list && <Banner>{tr('dsweeps.loadFailed', { message: sweeps.error.message })}</Banner>}
      {!list && !sweeps.error && <Skeleton h={120} />}
      {list && (
        <DistributedSweepsTable
          list={list}
          canWrite={canWrite}
          openId={open?.id ?? null}
          onOpen={(s) => setChosen(s.id)}
          onCancel={setCancelling}
        />
      )}
      {open && open.state !== 'cancelled' && <DistributedSweepDetail s={open} detail={detailIsCurrent(open, detail) ? detail : undefined} error={detailError?.id === open.id ? detailError.message : null} />}
      {cancelling && <CancelSweepDialog s={cancelling} busy={busy} onConfirm={() => void confirmCancel()} onClose={() => !busy && setCancelling(null)} />}
    </section>
  );
}

// The list (or, empty, how to start one).
// The newest sweeps (the server keeps every one): the running ones and the last few; the rest
// behind a button.
const kShown = 8;

export function DistributedSweepsTable({ list, canWrite, openId, onOpen, onCancel }: { list: DistributedSweep[]; canWrite: boolean; openId: string | null; onOpen: (s: DistributedSweep) => void; onCancel: (s: DistributedSweep) => void }) {
  const [all, setAll] = useState(false);
  if (list.length === 0) return <DistributedSweepsEmpty />;
  const shown = all ? list : list.filter((s, i) => i < kShown || s.state === 'running' || s.id === openId);
  return (
    <div className="card">
      <table className="table dsweep-table">
        <thead>
          <tr>
            <th>{tr('dsweeps.colSweep')}</th>
            <th>{tr('studies.colState')}</th>
            <th style={{ width: '28%' }}>{tr('dsweeps.colRuns')}</th>
            <th className="num">{tr('dsweeps.colShards')}</th>
            <th>{tr('dsweeps.colFailures')}</th>
            <th>{tr('dsweeps.colCreated')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <DistributedSweepRow key={s.id} s={s} canWrite={canWrite} open={s.id === openId} onOpen={() => onOpen(s)} onCancel={() => onCancel(s)} />
          ))}
        </tbody>
      </table>
      {shown.length < list.length && (
        <div className="dsweep-more">
          <button className="btn sm ghost" onClick={() => setAll(true)}>
            Show all {list.length} sweeps
          </button>
        </div>
      )}
    </div>
  );
}

export function DistributedSweepRow({ s, canWrite, open, onOpen, onCancel }: { s: DistributedSweep; canWrite: boolean; open: boolean; onOpen: () => void; onCancel: () => void }) {
  const fraction = sweepFraction(s);
  return (
    <>
      <tr data-sweep={s.id} data-state={s.state} className={s.failures.length ? 'has-failures' : undefined}>
        <td>
          <div className="dsweep-name">{s.name}</div>
          <div className="small muted mono">{s.id}</div>
          <div className="small muted mono dsweep-file" title={s.file}>
            {s.file}
          </div>
        </td>
        <td>
          <StateBadge state={sweepBadgeState(s)} label={s.state} />
        </td>
        <td>
          <div className="row small" style={{ marginBottom: 4 }}>
            <span data-testid="dsweep-runs">{sweepRunsText(s, tr)}</span>
            <span className="muted" style={{ marginLeft: 'auto' }}>
              {pct(fraction, 0)}
            </span>
          </div>
          <div className={`progress dsweep-progress ${s.state}`} role="progressbar" aria-valuemin={0} aria-valuemax={s.runs.total} aria-valuenow={s.runs.done} aria-label={`${s.name}: ${sweepRunsText(s, tr)}`}>
            <div style={{ width: pct(fraction) }} />
          </div>
        </td>
        <td className="num">{s.shards}</td>
        <td>{s.failures.length ? <span className="dsweep-failed">{`${s.failures.length} · ${failedShardsText(s)}`}</span> : <span className="muted">none</span>}</td>
        <td className="small nowrap" title={s.ended ? tr('dsweeps.ended', { time: fmtTime(s.ended) }) : undefined}>
          {fmtShort(s.created)}
        </td>
        <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
          {s.state === 'running' && (
            <button className="btn sm danger" style={{ marginRight: 6 }} onClick={onCancel} disabled={!canWrite} title={canWrite ? tr('dsweeps.cancelTitle') : readOnlyHint()} data-testid={`cancel-dsweep-${s.id}`}>
              {tr('common.cancel')}
            </button>
          )}
          {s.state !== 'cancelled' && (
            <button className="btn sm" onClick={onOpen} disabled={open} aria-pressed={open} data-testid={`open-dsweep-${s.id}`} title={s.state === 'running' ? tr('dsweeps.soFarTitle') : tr('dsweeps.reportTitle')}>
              {s.state === 'running' ? 'Figures' : 'Report'}
            </button>
          )}
          {s.state === 'cancelled' && <span className="small muted">no report</span>}
        </td>
      </tr>
      {s.failures.length > 0 && (
        <tr className="dsweep-failures-row">
          <td colSpan={7}>
            <div className="dsweep-failures" data-testid="dsweep-failures">
              {s.failures.map((f, i) => (
                <div key={i} className="dsweep-failure">
                  <div className="small">
                    <b>Shard {f.shard}</b> failed{f.at ? ` at ${fmtTime(f.at)}` : ''}
                    {s.state === 'running' ? '; Kubernetes retries it, and the runs it had posted are kept' : ''}:
                  </div>
                  <pre className="mono">{f.message || '(the worker sent no message)'}</pre>
                </div>
              ))}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

// Below the list: a done sweep's charts and report; a running one's figures so far, each
// point's mean ± 95 % CI over the seeds recorded (the CLI's table, computed by the server),
// filling in as its shards post runs.
export function DistributedSweepDetail({ s, detail, error }: { s: DistributedSweep; detail?: DistributedSweep; error: string | null }) {
  const running = s.state === 'running';
  const shown = detail ? asStudy(detail) : null;
  return (
    <div className="card study-result" data-testid="distributed-sweep-result" data-sweep={s.id} data-state={s.state}>
      <div className="card-head">
        <span className="tag accent">{tr('dsweeps.tag')}</span>
        <h2>{s.name}</h2>
        <StateBadge state={sweepBadgeState(s)} label={s.state} />
        <span className="small muted">
          {sweepRunsInShardsText(s, tr)}
          {s.ended ? ` · ended ${fmtTime(s.ended)}` : ''}
        </span>
      </div>
      <div className="card-body">
        {error && <Banner>Could not load the {running ? 'figures' : 'report'} of {s.name}: {error}</Banner>}
        {!error && !shown && <Skeleton h={200} />}
        {shown && <StudyReport s={shown} caption={running && detail ? <PartialCaption s={detail} /> : undefined} />}
        {shown && shown.report === null && <div className="small muted">{running ? 'This server gives no figures before the end: the report comes when the sweep is done.' : 'The server sent no report.'}</div>}
      </div>
    </div>
  );
}

// Above a running sweep's figures: what they are (the counts of the answer they come from).
export function PartialCaption({ s }: { s: DistributedSweep }) {
  return (
    <span data-testid="dsweep-partial">
      <b>{tr('dsweeps.partialLead')}</b>
      {tr('dsweeps.partialCaption', { runs: sweepRunsText(s, tr) })}
    </span>
  );
}

export function DistributedSweepsEmpty() {
  return (
    <div className="card empty dsweep-empty" data-testid="dsweeps-empty">
      <div>
        <b>No sweeps on Kubernetes yet.</b> A sweep too large for one machine runs as a Kubernetes Indexed Job whose pods post their runs here:
      </div>
      <pre className="mono">{`gantry sweep my-sweep.yaml --on kubernetes --server ${typeof window !== 'undefined' ? window.location.origin : 'URL'} --token "$ADMIN" \\
    --kubeconfig ~/.kube/config --namespace what-if \\
    --image registry.example/gantry:1.0 --parallelism 32`}</pre>
      <div className="small muted">
        It appears here at once and fills in as its shards finish runs. The Role it needs, the flags and what the Job looks like: Gantry's <code>sim/PLANNING.md</code>, section <b>Sweeps on Kubernetes</b>.
      </div>
    </div>
  );
}

export function CancelSweepDialog({ s, busy, onConfirm, onClose }: { s: DistributedSweep; busy: boolean; onConfirm: () => void; onClose: () => void }) {
  const command = cancelCommand(s.id);
  const [lead, cluster] = cancelDialogLines(s);
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(command).then(() => setCopied(true));
  };
  return (
    <Modal
      title={tr('dsweeps.cancelQ', { name: s.name })}
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            {tr('dsweeps.keep')}
          </button>
          <button className="btn danger" onClick={onConfirm} disabled={busy} data-testid="confirm-cancel-dsweep">
            {busy ? tr('dsweeps.cancelling') : tr('dsweeps.cancelSweep')}
          </button>
        </>
      }
    >
      <div className="dsweep-dialog" data-testid="cancel-dsweep-dialog">
        <p>{lead}</p>
        <p>{cluster}</p>
        <div className="dsweep-command">
          <pre className="mono" data-testid="cancel-dsweep-command">{command}</pre>
          <button className="btn sm" onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
        <p className="small muted">It deletes the Job gantry-sweep-{s.id} (and its pods, and the Secret holding the workers' token). Replace NAMESPACE with the sweep's namespace.</p>
      </div>
    </Modal>
  );
}

function CancelledToast({ s }: { s: DistributedSweep }) {
  return (
    <>
      {tr('dsweeps.cancelledToast', { name: s.name, runs: sweepRunsText(s, tr) })} <code>{cancelCommand(s.id)}</code>
    </>
  );
}
