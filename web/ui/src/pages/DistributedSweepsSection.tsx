// The what-if page's "Sweeps on Kubernetes": the user's own sweeps run by the pods of a
// Kubernetes Indexed Job, coordinated by this server (`gantry sweep FILE --on kubernetes`).
// Each with its state, its runs filling in live from the `distributed-sweep` events (no polling),
// its shards and every shard failure's message; Cancel for a running one (with what it does and
// the command that deletes the Job); a done one's report and charts, drawn by StudiesSection's
// own StudyReport. The view components take plain props (test/distributedSweepsView.test.tsx).

import { useCallback, useEffect, useState } from 'react';
import { cancelDistributedSweep, fetchDistributedSweep, fetchDistributedSweeps, kDistributedSweepsKey } from '../api/distributedSweeps';
import { useLiveEvents } from '../api/events';
import { mutate, useResource } from '../api/resource';
import { kReadOnlyHint, useCanWrite } from '../api/session';
import type { DistributedSweep } from '../api/types';
import { Banner, Modal, Skeleton, StateBadge, useToast } from '../components/ui';
import { fmtShort, fmtTime, pct } from '../format';
import { applyDistributedSweepEvent, asStudy, cancelCommand, cancelDialogLines, failedShardsText, sweepBadgeState, sweepFraction, sweepRunsText } from '../model/distributedSweeps';
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
  const [resultError, setResultError] = useState<{ id: string; message: string } | null>(null);
  const [cancelling, setCancelling] = useState<DistributedSweep | null>(null);
  const [busy, setBusy] = useState(false);
  const reload = sweeps.reload;

  // Live: each event updates its sweep in place (a new one appears at the top). A `reset` (the
  // server's event buffer lost what was missed) reloads the list.
  useLiveEvents(['distributed-sweep', 'reset'], (type, data) => {
    if (type === 'reset') void reload();
    else mutate<DistributedSweep[]>(kDistributedSweepsKey, (list) => applyDistributedSweepEvent(list, data));
  });

  const list = sweeps.data;
  // The report shown: the one chosen, else the newest done sweep.
  const openId = chosen ?? list?.find((s) => s.state === 'done')?.id ?? null;
  const open = list?.find((s) => s.id === openId && s.state === 'done');
  const openResult = open ? full.get(open.id) : undefined;
  const needsResult = open && !openResult ? open.id : '';
  const loadResult = useCallback(async (id: string) => {
    try {
      const s = await fetchDistributedSweep(id);
      results.set(id, s);
      setFull(new Map(results));
      setResultError(null);
    } catch (e) {
      setResultError({ id, message: (e as Error).message });
    }
  }, []);
  useEffect(() => {
    if (needsResult) void loadResult(needsResult);
  }, [needsResult, loadResult]);

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
      toast('error', `Could not cancel ${s.name}: ${(e as Error).message}`, 10000);
      setCancelling(null);
      void reload();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="studies dsweeps" data-testid="distributed-sweeps">
      <div className="section-head">
        <h2>Sweeps on Kubernetes</h2>
        <div className="sub">
          Your own sweeps, too large for one machine, run by the pods of a Kubernetes Indexed Job with this server as the coordinator. Each shard posts its runs as they finish; the merged report is exactly what a local <code>gantry sweep</code> prints.
        </div>
      </div>
      {sweeps.error && !list && <Banner>Could not load the sweeps on Kubernetes: {sweeps.error.message}</Banner>}
      {!list && !sweeps.error && <Skeleton h={120} />}
      {list && (
        <DistributedSweepsTable
          list={list}
          canWrite={canWrite}
          openId={open?.id ?? null}
          onOpen={(s) => setChosen(s.id === open?.id ? null : s.id)}
          onCancel={setCancelling}
        />
      )}
      {open && (
        <div className="card study-result" data-testid="distributed-sweep-result" data-sweep={open.id}>
          <div className="card-head">
            <span className="tag accent">Sweep on Kubernetes</span>
            <h2>{open.name}</h2>
            <StateBadge state={sweepBadgeState(open)} label={open.state} />
            <span className="small muted">
              {sweepRunsText(open)} in {open.shards} shard{open.shards === 1 ? '' : 's'} · ended {fmtTime(open.ended)}
            </span>
          </div>
          <div className="card-body">
            {openResult ? <StudyReport s={asStudy(openResult)} /> : resultError?.id === open.id ? <Banner>Could not load the report of {open.name}: {resultError.message}</Banner> : <Skeleton h={200} />}
          </div>
        </div>
      )}
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
            <th>Sweep</th>
            <th>State</th>
            <th style={{ width: '28%' }}>Runs</th>
            <th className="num">Shards</th>
            <th>Failures</th>
            <th>Created</th>
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
            <span data-testid="dsweep-runs">{sweepRunsText(s)}</span>
            <span className="muted" style={{ marginLeft: 'auto' }}>
              {pct(fraction, 0)}
            </span>
          </div>
          <div className={`progress dsweep-progress ${s.state}`} role="progressbar" aria-valuemin={0} aria-valuemax={s.runs.total} aria-valuenow={s.runs.done} aria-label={`${s.name}: ${sweepRunsText(s)}`}>
            <div style={{ width: pct(fraction) }} />
          </div>
        </td>
        <td className="num">{s.shards}</td>
        <td>{s.failures.length ? <span className="dsweep-failed">{`${s.failures.length} · ${failedShardsText(s)}`}</span> : <span className="muted">none</span>}</td>
        <td className="small nowrap" title={s.ended ? `ended ${fmtTime(s.ended)}` : undefined}>
          {fmtShort(s.created)}
        </td>
        <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
          {s.state === 'running' && (
            <button className="btn sm danger" onClick={onCancel} disabled={!canWrite} title={canWrite ? 'Cancel this sweep: its workers stop' : kReadOnlyHint} data-testid={`cancel-dsweep-${s.id}`}>
              Cancel
            </button>
          )}
          {s.state === 'done' && (
            <button className="btn sm" onClick={onOpen} aria-pressed={open} data-testid={`report-dsweep-${s.id}`}>
              {open ? 'Hide report' : 'Report'}
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
        It appears here at once and fills in as its shards finish runs. The Role it needs, the flags and what the Job looks like: Gantry's <code>README.md</code>, section <b>Sweeps on Kubernetes</b>.
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
      title={`Cancel ${s.name}?`}
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            Keep running
          </button>
          <button className="btn danger" onClick={onConfirm} disabled={busy} data-testid="confirm-cancel-dsweep">
            {busy ? 'Cancelling…' : 'Cancel the sweep'}
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
      Cancelled {s.name} after {sweepRunsText(s)}. Delete its Job: <code>{cancelCommand(s.id)}</code>
    </>
  );
}
