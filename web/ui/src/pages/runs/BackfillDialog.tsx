// Backfill a window of a scheduled pipeline (issue #26 §3; POST /pipelines/{name}/backfill):
// the dialog says how many runs the window holds before anything starts, and what happens to
// runs that exist already.
import { useMemo, useState } from 'react';
import { api, enc } from '../../api/client';
import { Modal, useToast } from '../../components/ui';
import { fmtTime } from '../../format';
import { previewBackfill, utcInput } from '../../model/backfill';
import { DialogFooter, useSubmit } from './dialogParts';
import { t, tNodes } from '../../i18n';

type Rerun = 'none' | 'failed' | 'all';
const kRerun: Record<Rerun, () => string> = {
  none: () => t('backfill.rerunNone'),
  failed: () => t('backfill.rerunFailed'),
  all: () => t('backfill.rerunAll'),
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
      toast('ok', t(r.created === 1 ? 'backfill.toastOne' : 'backfill.toast', { name: pipeline, created: r.created, rerun: r.rerun, untouched: r.untouched }));
      onDone();
      onClose();
    });
  return (
    <Modal
      title={t('backfill.title', { name: pipeline })}
      onClose={onClose}
      footer={
        <DialogFooter
          onClose={onClose}
          onConfirm={() => void go()}
          label={preview.error ? t('backfill.button') : t('backfill.label', { count: preview.ticks, more: preview.more ? '+' : '' })}
          busy={busy}
          disabled={!!preview.error || preview.ticks === 0}
          testid="confirm-backfill"
        />
      }
    >
      <div data-testid="backfill-dialog">
        <p style={{ marginTop: 0 }}>
          {tNodes('backfill.intro', { cron: <code>{schedule.cron}</code> }, { zone: schedule.timezone })}
        </p>
        <div className="row" style={{ gap: 12, marginBottom: 10 }}>
          <label className="field">
            {t('backfill.from')}
            <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="backfill-from" />
          </label>
          <label className="field">
            {t('backfill.to')}
            <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} data-testid="backfill-to" />
          </label>
        </div>
        <label className="field" style={{ marginBottom: 10 }}>
          {t('backfill.existing')}
          <select value={rerun} onChange={(e) => setRerun(e.target.value as Rerun)} data-testid="backfill-rerun">
            {(Object.keys(kRerun) as Rerun[]).map((k) => (
              <option key={k} value={k}>
                {kRerun[k]()}
              </option>
            ))}
          </select>
        </label>
        {from && to && preview.error && <div className="banner error">{t(preview.error.key, preview.error.params)}</div>}
        {!preview.error && (
          <div className="banner info" data-testid="backfill-preview">
            {preview.ticks === 0
              ? t('backfill.none')
              : t('backfill.preview', {
                  ticks: t(preview.more ? 'backfill.ticksMore' : 'backfill.ticks', { count: preview.ticks }),
                  first: fmtTime(preview.first!.toISOString()),
                  last: fmtTime(preview.last!.toISOString()),
                })}
          </div>
        )}
        {error && <div className="banner error">{error}</div>}
      </div>
    </Modal>
  );
}
