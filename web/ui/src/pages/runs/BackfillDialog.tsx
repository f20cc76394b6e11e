// Backfill a window of a scheduled pipeline (issue #26 §3; POST /pipelines/{name}/backfill):
// the dialog says how many runs the window holds before anything starts, and what happens to
// runs that exist already.
import { useMemo, useState } from 'react';
import { api, enc } from '../../api/client';
import { Modal, useToast } from '../../components/ui';
import { fmtTime } from '../../format';
import { previewBackfill, utcInput } from '../../model/backfill';
import { DialogFooter, useSubmit } from './dialogParts';

type Rerun = 'none' | 'failed' | 'all';
const kRerun: Record<Rerun, string> = {
  none: 'leave runs that exist as they are',
  failed: 'run again those that did not succeed',
  all: 'run every one of them again',
};

export function BackfillDialog({ pipeline, schedule, onDone, onClose }: { pipeline: string; schedule: { cron: string; timezone: string }; onDone: () => void; onClose: () => void }) {
  const toast = useToast();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rerun, setRerun] = useState<Rerun>('none');
  const { busy, error, submit } = useSubmit();
  const preview = useMemo(() => previewBackfill(schedule.cron, schedule.timezone, from, to), [schedule, from, to]);
  const go = () =>
    submit(async () => {
      const r = await api<{ created: number; rerun: number; untouched: number }>(`/pipelines/${enc(pipeline)}/backfill`, {
        method: 'POST',
        body: { from: utcInput(from)!.toISOString(), to: utcInput(to)!.toISOString(), rerun },
      });
      toast('ok', `Backfill of ${pipeline}: ${r.created} runs created, ${r.rerun} run again, ${r.untouched} left as they were.`);
      onDone();
      onClose();
    });
  return (
    <Modal
      title={`Backfill ${pipeline}`}
      onClose={onClose}
      footer={
        <DialogFooter
          onClose={onClose}
          onConfirm={() => void go()}
          label={`Backfill ${preview.error ? '' : `${preview.ticks.toLocaleString('en')}${preview.more ? '+' : ''} runs`}`}
          busy={busy}
          disabled={!!preview.error || preview.ticks === 0}
          testid="confirm-backfill"
        />
      }
    >
      <div data-testid="backfill-dialog">
        <p style={{ marginTop: 0 }}>
          A run for every tick of <code>{schedule.cron}</code> ({schedule.timezone}) in the window, both ends included. Times are UTC.
        </p>
        <div className="row" style={{ gap: 12, marginBottom: 10 }}>
          <label className="field">
            From (UTC)
            <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="backfill-from" />
          </label>
          <label className="field">
            To (UTC)
            <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} data-testid="backfill-to" />
          </label>
        </div>
        <label className="field" style={{ marginBottom: 10 }}>
          Runs that exist already
          <select value={rerun} onChange={(e) => setRerun(e.target.value as Rerun)} data-testid="backfill-rerun">
            {(Object.keys(kRerun) as Rerun[]).map((k) => (
              <option key={k} value={k}>
                {kRerun[k]}
              </option>
            ))}
          </select>
        </label>
        {from && to && preview.error && <div className="banner error">{preview.error}</div>}
        {!preview.error && (
          <div className="banner info" data-testid="backfill-preview">
            {preview.ticks === 0
              ? 'The window holds no tick of the schedule: nothing would start.'
              : `${preview.ticks.toLocaleString('en')}${preview.more ? ' or more' : ''} ticks, from ${fmtTime(preview.first!.toISOString())} to ${fmtTime(preview.last!.toISOString())}: a run for each that has none; they start as the pipeline's concurrency allows.`}
          </div>
        )}
        {error && <div className="banner error">{error}</div>}
      </div>
    </Modal>
  );
}
