// The Runs page's query (src/model/runQuery.ts): times typed in UTC read as RFC 3339, the form's
// refusals in both languages, the address kept and read back, the API path with paging inside
// the window, the live events' runs held to the query, and the quick windows. Every expected
// time is worked out by hand in its comment.

import { describe, expect, it } from 'vitest';
import { checkRangeForm, lastHours, readTimeInput, runMatches, runQueryFromAddress, runQueryToAddress, runsApiPath, timeInputText, type RunQuery } from '../src/model/runQuery';
import { translate } from '../src/i18n/t';

describe('readTimeInput', () => {
  it('reads the forms a person types, in UTC', () => {
    expect(readTimeInput('2026-01-01 03:00', 'from')?.time).toBe('2026-01-01T03:00:00Z');
    expect(readTimeInput(' 2026-01-01T03:00 ', 'from')?.time).toBe('2026-01-01T03:00:00Z');
    expect(readTimeInput('2026-01-01 03:00:30', 'to')?.time).toBe('2026-01-01T03:00:30Z');
    expect(readTimeInput('2026-01-01 03:00 UTC', 'from')?.time).toBe('2026-01-01T03:00:00Z');
    expect(readTimeInput('2026-01-01T03:00:00Z', 'from')?.time).toBe('2026-01-01T03:00:00Z');
    // 11:00 at UTC+08:00 is 03:00 UTC; 22:30 at UTC-05:00 is 03:30 UTC the next day.
    expect(readTimeInput('2026-01-01T11:00:00+08:00', 'from')?.time).toBe('2026-01-01T03:00:00Z');
    expect(readTimeInput('2025-12-31T22:30:00-05:00', 'from')?.time).toBe('2026-01-01T03:30:00Z');
    // A fraction is kept to the microsecond (the server's resolution).
    expect(readTimeInput('2026-01-01T03:00:00.25Z', 'from')?.time).toBe('2026-01-01T03:00:00.250000Z');
  });

  it('reads a date alone as the whole day: its start for from, its last microsecond for to', () => {
    expect(readTimeInput('2026-01-02', 'from')?.time).toBe('2026-01-02T00:00:00Z');
    expect(readTimeInput('2026-01-02', 'to')?.time).toBe('2026-01-02T23:59:59.999999Z');
    // 2026-01-02T00:00:00Z is 1,767,312,000 s after the epoch (20,455 days × 86,400 s).
    expect(readTimeInput('2026-01-02', 'from')?.micros).toBe(1_767_312_000_000_000);
    expect(readTimeInput('2026-01-02', 'to')?.micros).toBe(1_767_312_000_000_000 + 86_400_000_000 - 1);
  });

  it('refuses what is not a time, or a day or hour that does not exist', () => {
    for (const bad of ['', 'yesterday', '2026-1-1', '01/02/2026', '2026-01-01 3:00', '2026-02-30', '2026-13-01', '2026-01-01 24:00', '2026-01-01 12:60', '2026-01-01T03:00:00+25:00'])
      expect(readTimeInput(bad, 'from'), bad).toBeNull();
    // 2028 is a leap year, 2026 is not.
    expect(readTimeInput('2028-02-29', 'from')?.time).toBe('2028-02-29T00:00:00Z');
    expect(readTimeInput('2026-02-29', 'from')).toBeNull();
  });

  it('writes a bound back as the field shows it', () => {
    expect(timeInputText('2026-01-01T03:00:00Z', 'from')).toBe('2026-01-01 03:00');
    expect(timeInputText('2026-01-01T03:00:30Z', 'to')).toBe('2026-01-01 03:00:30');
    expect(timeInputText('2026-01-02T23:59:59.999999Z', 'to')).toBe('2026-01-02');
    expect(timeInputText('2026-01-02T00:00:00Z', 'from')).toBe('2026-01-02 00:00');
  });
});

describe('checkRangeForm', () => {
  const say = (c: ReturnType<typeof checkRangeForm>, locale: 'en' | 'zh-CN') => (c.ok ? '' : translate(locale, c.key, c.params));

  it('takes either end alone, both, or none', () => {
    expect(checkRangeForm('', '')).toEqual({ ok: true, from: '', to: '' });
    expect(checkRangeForm('2026-01-01 03:00', '')).toEqual({ ok: true, from: '2026-01-01T03:00:00Z', to: '' });
    expect(checkRangeForm('', '2026-01-01')).toEqual({ ok: true, from: '', to: '2026-01-01T23:59:59.999999Z' });
    // Both ends at one instant: a window of one tick.
    expect(checkRangeForm('2026-01-01 03:00', '2026-01-01 03:00')).toEqual({ ok: true, from: '2026-01-01T03:00:00Z', to: '2026-01-01T03:00:00Z' });
  });

  it('refuses an unreadable end, naming the field, in both languages', () => {
    const c = checkRangeForm('yesterday', '2026-01-01');
    expect(c).toMatchObject({ ok: false, field: 'from' });
    expect(say(c, 'en')).toBe('From: "yesterday" is not a time; write it as 2026-11-28 14:00 or 2026-11-28 (UTC)');
    expect(say(c, 'zh-CN')).toBe('起始：“yesterday” 不是时间；请写成 2026-11-28 14:00 或 2026-11-28（UTC）');
    const d = checkRangeForm('2026-01-01', '2026-02-30 10:00');
    expect(d).toMatchObject({ ok: false, field: 'to' });
    expect(say(d, 'en')).toBe('To: "2026-02-30 10:00" is not a time; write it as 2026-11-28 14:00 or 2026-11-28 (UTC)');
  });

  it('refuses an end before the start, in both languages', () => {
    // 02:59 is a minute before 03:00.
    const c = checkRangeForm('2026-01-01 03:00', '2026-01-01 02:59');
    expect(c).toMatchObject({ ok: false, field: 'to' });
    expect(say(c, 'en')).toBe('To (2026-01-01 02:59) is before From (2026-01-01 03:00)');
    expect(say(c, 'zh-CN')).toBe('截止时间（2026-01-01 02:59）早于起始时间（2026-01-01 03:00）');
    // 11:00+08:00 is 03:00 UTC: after 02:30 UTC, so accepted although "11" > "02:30" says nothing.
    expect(checkRangeForm('2026-01-01 02:30', '2026-01-01T11:00:00+08:00')).toMatchObject({ ok: true, to: '2026-01-01T03:00:00Z' });
    // 10:00+08:00 is 02:00 UTC: before 02:30 UTC.
    expect(checkRangeForm('2026-01-01 02:30', '2026-01-01T10:00:00+08:00')).toMatchObject({ ok: false, key: 'runs.rangeOrder' });
  });
});

describe('the address', () => {
  const q: RunQuery = { state: 'failed', from: '2026-01-01T03:00:00Z', to: '2026-01-01T06:00:00Z' };

  it('keeps the query and the run selected, and reads them back', () => {
    const text = runQueryToAddress(q, '2026-01-01T04:00:00Z');
    expect(text).toBe('state=failed&from=2026-01-01T03%3A00%3A00Z&to=2026-01-01T06%3A00%3A00Z&run=2026-01-01T04%3A00%3A00Z');
    const back = runQueryFromAddress(new URLSearchParams(text));
    expect(back).toEqual({ query: q, fromText: '2026-01-01 03:00', toText: '2026-01-01 06:00', problem: null });
    expect(runQueryToAddress({ state: '', from: '', to: '' })).toBe('');
  });

  it('ignores an unknown state and refuses a window it cannot read, asking nothing', () => {
    expect(runQueryFromAddress(new URLSearchParams('state=exploded')).query).toEqual({ state: '', from: '', to: '' });
    const bad = runQueryFromAddress(new URLSearchParams('state=failed&from=2026-01-01T06:00:00Z&to=2026-01-01T03:00:00Z'));
    expect(bad.problem).toMatchObject({ field: 'to', key: 'runs.rangeOrder', params: { from: '2026-01-01 06:00', to: '2026-01-01 03:00' } });
    // The fields show what the address says, to be corrected: as typed when readable.
    expect([bad.fromText, bad.toText]).toEqual(['2026-01-01 06:00', '2026-01-01 03:00']);
    const soon = runQueryFromAddress(new URLSearchParams('from=soon&to=2026-01-02T23:59:59.999999Z'));
    expect(soon.problem).toMatchObject({ field: 'from', key: 'runs.rangeBadFrom', params: { text: 'soon' } });
    expect([soon.fromText, soon.toText]).toEqual(['soon', '2026-01-02']);
  });
});

describe('runsApiPath', () => {
  it('sends the state and the window to the server, and pages inside them', () => {
    const q: RunQuery = { state: 'succeeded', from: '2026-01-01T02:00:00Z', to: '2026-01-02T09:00:00Z' };
    expect(runsApiPath('feature-etl', q, 25)).toBe('/pipelines/feature-etl/runs?limit=25&state=succeeded&from=2026-01-01T02%3A00%3A00Z&to=2026-01-02T09%3A00%3A00Z');
    // The next page: the same query after the cursor of the page before.
    expect(runsApiPath('feature-etl', q, 25, '1767322800000000')).toBe('/pipelines/feature-etl/runs?limit=25&state=succeeded&from=2026-01-01T02%3A00%3A00Z&to=2026-01-02T09%3A00%3A00Z&after=1767322800000000');
    expect(runsApiPath('a b', { state: '', from: '', to: '' }, 25)).toBe('/pipelines/a%20b/runs?limit=25');
  });
});

describe('runMatches', () => {
  const q: RunQuery = { state: '', from: '2026-01-01T03:00:00Z', to: '2026-01-01T06:00:00Z' };
  it('holds the runs to the window, both ends included, and to the state', () => {
    const run = (logicalTime: string, state: 'succeeded' | 'failed' = 'succeeded') => ({ logicalTime, state });
    expect(runMatches(run('2026-01-01T03:00:00Z'), q)).toBe(true);
    expect(runMatches(run('2026-01-01T06:00:00Z'), q)).toBe(true);
    expect(runMatches(run('2026-01-01T02:59:59Z'), q)).toBe(false);
    expect(runMatches(run('2026-01-01T06:00:00.000001Z'), q)).toBe(false);
    expect(runMatches(run('2026-01-01T04:00:00Z', 'failed'), { ...q, state: 'succeeded' })).toBe(false);
    expect(runMatches(run('2030-01-01T00:00:00Z'), { state: '', from: '', to: '' })).toBe(true);
  });
});

describe('lastHours', () => {
  it('goes back from the server’s now, from the minute, with no end', () => {
    // now = 2026-11-28T15:42:31.500Z; 24 h before is 2026-11-27T15:42:31.5Z, from 15:42.
    expect(lastHours(24, Date.parse('2026-11-28T15:42:31.500Z'))).toEqual({ from: '2026-11-27T15:42:00Z', to: '' });
    // 7 days before: 2026-11-21T15:42.
    expect(lastHours(24 * 7, Date.parse('2026-11-28T15:42:31.500Z'))).toEqual({ from: '2026-11-21T15:42:00Z', to: '' });
  });
});
