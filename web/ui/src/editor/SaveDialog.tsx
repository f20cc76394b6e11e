// What saving will do to schedules, said before it happens (issue #26 §4): a pipeline new to
// the server starts paused unless the user ticks "Start its schedule now", and the dialog says
// which runs starting it would start at once (the dry run's catchUp, web/API.md); an existing
// running pipeline whose new schedule has missed ticks starts them at save, which is said too.

import type { PipelineSummary } from '../api/types';
import { Modal } from '../components/ui';
import { fmtTime } from '../format';

export interface SavePlan {
  summary: PipelineSummary; // from the server's dry run of the text being saved
  isNew: boolean; // no pipeline of that name on the server yet
}

// The runs switching `s` on now would start at once, in words; "" when none.
export function catchUpWords(s: PipelineSummary): string {
  const c = s.catchUp;
  if (!c || c.runs === 0) return '';
  const span = c.first && c.last && c.first !== c.last ? `${fmtTime(c.first)} to ${fmtTime(c.last)}` : c.last ? fmtTime(c.last) : '';
  return `${c.runs} run${c.runs === 1 ? '' : 's'} at once${span ? ` (${span})` : ''}${c.catchup ? '' : ', the latest missed tick only (catchup: false)'}`;
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
    if (isNew && !start) return `${s.name} is saved paused: nothing runs until you resume it${runs ? `, which will start ${runs}` : ''}.`;
    if (isNew) return `${s.name} starts its schedule now${runs ? ` and starts ${runs}` : ' (no tick has passed yet)'}.`;
    return `Saving ${s.name} starts ${runs}: its new schedule has ticks that have passed.`;
  });
}

export function SaveDialog({ plans, start, setStart, busy, onConfirm, onClose }: { plans: SavePlan[]; start: boolean; setStart: (v: boolean) => void; busy: boolean; onConfirm: () => void; onClose: () => void }) {
  const anyNew = plansToConfirm(plans).some((p) => p.isNew);
  return (
    <Modal
      title="Save and schedule"
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button className="btn primary" onClick={onConfirm} disabled={busy} data-testid="confirm-save">
            {busy ? 'Saving…' : 'Save'}
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
            <input type="checkbox" checked={start} onChange={(e) => setStart(e.target.checked)} data-testid="start-now" /> Start its schedule now
          </label>
        )}
      </div>
    </Modal>
  );
}
