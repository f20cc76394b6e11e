// What saving will do to schedules, said before it happens (issue #26 §4): a pipeline new to
// the server starts paused unless the user ticks "Start its schedule now", and the dialog says
// which runs starting it would start at once (the dry run's catchUp, web/API.md); an existing
// running pipeline whose new schedule has missed ticks starts them at save, which is said too.

import type { PipelineSummary } from '../api/types';
import { Modal } from '../components/ui';
import { fmtTime } from '../format';
import { t } from '../i18n';

export interface SavePlan {
  summary: PipelineSummary; // from the server's dry run of the text being saved
  isNew: boolean; // no pipeline of that name on the server yet
}

// The runs switching `s` on now would start at once, in words; "" when none.
export function catchUpWords(s: PipelineSummary): string {
  const c = s.catchUp;
  if (!c || c.runs === 0) return '';
  const span = c.first && c.last && c.first !== c.last ? t('save.span', { first: fmtTime(c.first), last: fmtTime(c.last) }) : c.last ? fmtTime(c.last) : '';
  return t('save.runsAtOnce', { count: c.runs, span: span ? ` (${span})` : '', latest: c.catchup ? '' : t('save.latestOnly') });
}

// The plans that need the user's word before saving: new scheduled pipelines (paused or not is
// their choice) and running ones that would start runs at save.
export function plansToConfirm(plans: SavePlan[]): SavePlan[] {
  return plans.filter((p) => p.summary.schedule && (p.isNew || (!p.summary.paused && (p.summary.catchUp?.runs ?? 0) > 0)));
}

// One line per plan, as the dialog shows it; `start`: the "Start its schedule now" box.
export function saveLines(plans: SavePlan[], start: boolean): string[] {
  return plansToConfirm(plans).map(({ summary: s, isNew }) => {
    const runs = catchUpWords(s);
    if (isNew && !start) return t('save.paused', { name: s.name, then: runs ? t('save.pausedThen', { runs }) : '' });
    if (isNew) return t('save.startsNow', { name: s.name, then: runs ? t('save.startsNowThen', { runs }) : t('save.noTick') });
    return t('save.startsRuns', { name: s.name, runs });
  });
}

export function SaveDialog({ plans, start, setStart, busy, onConfirm, onClose }: { plans: SavePlan[]; start: boolean; setStart: (v: boolean) => void; busy: boolean; onConfirm: () => void; onClose: () => void }) {
  const anyNew = plansToConfirm(plans).some((p) => p.isNew);
  return (
    <Modal
      title={t('save.title')}
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button className="btn primary" onClick={onConfirm} disabled={busy} data-testid="confirm-save">
            {busy ? t('save.saving') : t('save.save')}
          </button>
        </>
      }
    >
      <div data-testid="save-dialog">
        {saveLines(plans, start).map((l) => (
          <p key={l}>{l}</p>
        ))}
        {anyNew && (
          <label className="checkbox">
            <input type="checkbox" checked={start} onChange={(e) => setStart(e.target.checked)} data-testid="start-now" /> {t('save.startNow')}
          </label>
        )}
      </div>
    </Modal>
  );
}
