// What the editor says before a save that would create a scheduled pipeline or start runs of
// one (SaveDialog): which plans need the user's word, and the lines the dialog shows, from the
// dry run's catchUp (web/API.md).

import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PipelineSummary } from '../src/api/types';
import { catchUpWords, plansToConfirm, SaveDialog, saveLines } from '../src/editor/SaveDialog';
import { fmtTime } from '../src/format';

const base: PipelineSummary = {
  name: 'nightly',
  namespace: 'default',
  paused: true,
  schedule: { cron: '0 * * * *', timezone: 'UTC' },
  nextTicks: [],
  tasks: 2,
  lastRun: null,
  runsInFlight: 0,
};
// Hourly since 00:00, saved after 03:00: four ticks have passed.
const hourly: PipelineSummary = { ...base, catchUp: { runs: 4, missedTicks: 4, catchup: true, first: '2026-11-28T00:00:00Z', last: '2026-11-28T03:00:00Z' } };

describe('SaveDialog', () => {
  it('asks for new scheduled pipelines and running ones that would start runs, not for others', () => {
    const manual = { ...base, name: 'manual', schedule: null };
    const quiet = { ...base, name: 'quiet', paused: false, catchUp: { runs: 0, missedTicks: 0, catchup: true, first: null, last: null } };
    const backlog = { ...hourly, name: 'backlog', paused: false };
    const plans = [
      { summary: hourly, isNew: true },
      { summary: manual, isNew: true },
      { summary: quiet, isNew: false },
      { summary: backlog, isNew: false },
      { summary: { ...hourly, name: 'stillPaused' }, isNew: false },
    ];
    expect(plansToConfirm(plans).map((p) => p.summary.name)).toEqual(['nightly', 'backlog']);
  });

  it('says what resuming or starting would start, with the ticks', () => {
    const span = `${fmtTime('2026-11-28T00:00:00Z')} to ${fmtTime('2026-11-28T03:00:00Z')}`;
    expect(catchUpWords(hourly)).toBe(`4 runs at once (${span})`);
    const plans = [{ summary: hourly, isNew: true }];
    expect(saveLines(plans, false)).toEqual([`nightly is saved paused: nothing runs until you resume it, which will start 4 runs at once (${span}).`]);
    expect(saveLines(plans, true)).toEqual([`nightly starts its schedule now and starts 4 runs at once (${span}).`]);
    const latestOnly = { ...hourly, paused: false, catchUp: { runs: 1, missedTicks: 4, catchup: false, first: '2026-11-28T03:00:00Z', last: '2026-11-28T03:00:00Z' } };
    expect(saveLines([{ summary: latestOnly, isNew: false }], false)).toEqual([
      `Saving nightly starts 1 run at once (${fmtTime('2026-11-28T03:00:00Z')}), the latest missed tick only (catchup: false): its new schedule has ticks that have passed.`,
    ]);
  });

  it('offers the start box only for new pipelines', () => {
    const html = (isNew: boolean) =>
      renderToStaticMarkup(<SaveDialog plans={[{ summary: { ...hourly, paused: !isNew ? false : true }, isNew }]} start={false} setStart={() => {}} busy={false} onConfirm={() => {}} onClose={() => {}} />);
    expect(html(true)).toContain('Start its schedule now');
    expect(html(false)).not.toContain('Start its schedule now');
  });
});
