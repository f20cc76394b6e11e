import { describe, expect, it } from 'vitest';
import { previewBackfill, utcInput } from '../src/model/backfill';
import { translate } from '../src/i18n/t';

describe('backfill preview', () => {
  it('counts the ticks of the window, both ends included', () => {
    // Hourly from 00:00 to 05:00 on 1 January: 00, 01, 02, 03, 04, 05 = 6 runs.
    const p = previewBackfill('0 * * * *', 'UTC', '2026-01-01T00:00', '2026-01-01T05:00');
    expect(p.ticks).toBe(6);
    expect(p.first?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(p.last?.toISOString()).toBe('2026-01-01T05:00:00.000Z');
    expect(p.more).toBe(false);
  });

  it('stops counting at the limit and says there are more', () => {
    // Every minute for a day is 1,441 ticks (both ends): more than a limit of 100.
    const p = previewBackfill('* * * * *', 'UTC', '2026-01-01T00:00', '2026-01-02T00:00', 100);
    expect(p.ticks).toBe(100);
    expect(p.more).toBe(true);
  });

  it('refuses a window that ends before it starts, or a missing end', () => {
    const say = (e: ReturnType<typeof previewBackfill>['error'], locale: 'en' | 'zh-CN') => (e ? translate(locale, e.key, e.params) : '');
    const before = previewBackfill('0 * * * *', 'UTC', '2026-01-02T00:00', '2026-01-01T00:00').error;
    expect(say(before, 'en')).toBe('The end is before the start.');
    expect(say(before, 'zh-CN')).toBe('结束时间早于开始时间。');
    const half = previewBackfill('0 * * * *', 'UTC', '2026-01-02T00:00', '').error;
    expect(say(half, 'en')).toBe('Give both ends of the window.');
    expect(say(half, 'zh-CN')).toBe('请填写时间窗口的两端。');
    expect(utcInput('2026-01-01T00:00')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(utcInput('yesterday')).toBeNull();
  });
});
