// Delete a pipeline (issue #26 §3; DELETE /pipelines/{name}): the dialog says whether its runs
// are kept (readable in the API and the runs database) or purged for good, and a purge asks for
// the pipeline's name to be typed.
import { useState } from 'react';
import { api, enc } from '../../api/client';
import { Modal, useToast } from '../../components/ui';
import { DialogFooter, useSubmit } from './dialogParts';
import { t, tNodes } from '../../i18n';

// `inFlight`: its queued and running runs on the page; the server refuses to delete a pipeline
// while it has any (409), so the dialog says so first.
export function DeletePipelineDialog({ pipeline, runs, inFlight, onDeleted, onClose }: { pipeline: string; runs: number; inFlight: number; onDeleted: () => void; onClose: () => void }) {
  const toast = useToast();
  const [purge, setPurge] = useState(false);
  const [typed, setTyped] = useState('');
  const { busy, error, submit } = useSubmit();
  const go = () =>
    submit(async () => {
      const r = await api<{ deleted: string; runsPurged?: number; runsKept?: number }>(`/pipelines/${enc(pipeline)}${purge ? '?purge=true' : ''}`, { method: 'DELETE' });
      toast('ok', purge ? t('delete.toastPurged', { name: pipeline, purged: r.runsPurged !== undefined ? t('delete.purgedN', { n: r.runsPurged }) : '' }) : t('delete.toastKept', { name: pipeline, kept: r.runsKept !== undefined ? ` (${r.runsKept})` : '' }));
      onDeleted();
      onClose();
    });
  return (
    <Modal
      title={t('delete.title', { name: pipeline })}
      onClose={onClose}
      footer={<DialogFooter onClose={onClose} onConfirm={() => void go()} label={purge ? t('delete.withRuns') : t('delete.keepRuns')} busy={busy} disabled={inFlight > 0 || (purge && typed !== pipeline)} danger testid="confirm-delete" />}
    >
      <div data-testid="delete-dialog">
        <p style={{ marginTop: 0 }}>{t('delete.intro')}</p>
        {inFlight > 0 && (
          <div className="banner warn" data-testid="delete-in-flight">
            {t('delete.inFlight', { count: inFlight })}
          </div>
        )}
        <label className="row" style={{ gap: 8, marginBottom: 6 }}>
          <input type="radio" name="runs" checked={!purge} onChange={() => setPurge(false)} data-testid="delete-keep" />
          {t('delete.keep', { onPage: runs ? t('delete.onPage', { n: runs }) : '' })}
        </label>
        <label className="row" style={{ gap: 8, marginBottom: 10 }}>
          <input type="radio" name="runs" checked={purge} onChange={() => setPurge(true)} data-testid="delete-purge" />
          {t('delete.purge')}
        </label>
        {purge && (
          <label className="field">
            <span>{tNodes('delete.typeToConfirm', { name: <code>{pipeline}</code> })}</span>
            <input value={typed} onChange={(e) => setTyped(e.target.value)} data-testid="delete-typed" autoFocus />
          </label>
        )}
        {error && <div className="banner error">{error}</div>}
      </div>
    </Modal>
  );
}
