// The app's two languages (issue #26 §9): every English string has a Chinese one, the locale is
// chosen from the browser's languages or the stored choice, parameters and plurals.
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { chooseLocale } from '../src/i18n/locale';
import { interpolate, translate } from '../src/i18n';

// Strings that are the same in both languages on purpose: names of products, units, symbols.
const kSameInBoth = new Set<string>([]);

describe('zh-CN strings', () => {
  it('has every key of en and no other', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
  });
  it('has no empty value and none left in English (but the allow-listed)', () => {
    for (const [key, text] of Object.entries(zhCN)) {
      expect(text.trim(), key).not.toBe('');
      if (!kSameInBoth.has(key)) expect(text, key).not.toBe(en[key as keyof typeof en]);
    }
  });
  it('keeps every {parameter} of the English string', () => {
    for (const [key, text] of Object.entries(en)) {
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(names(zhCN[key as keyof typeof en]), key).toEqual(names(text));
    }
  });
});

describe('chooseLocale', () => {
  it('takes the first of the browser languages the app speaks', () => {
    expect(chooseLocale(['zh-CN', 'en'], null)).toBe('zh-CN');
    expect(chooseLocale(['zh'], null)).toBe('zh-CN');
    expect(chooseLocale(['zh-Hans'], null)).toBe('zh-CN');
    expect(chooseLocale(['zh-Hans-CN'], null)).toBe('zh-CN');
    expect(chooseLocale(['fr-FR', 'zh-CN', 'en'], null)).toBe('zh-CN'); // French is passed over
    expect(chooseLocale(['en-US', 'zh-CN'], null)).toBe('en');
    expect(chooseLocale(['zh-TW', 'en'], null)).toBe('en'); // Traditional Chinese is not offered
  });
  it('is English with no language the app speaks, or none at all', () => {
    expect(chooseLocale(['de', 'ja'], null)).toBe('en');
    expect(chooseLocale([], null)).toBe('en');
    expect(chooseLocale(undefined, null)).toBe('en');
  });
  it('lets the stored choice of the switch win over the browser', () => {
    expect(chooseLocale(['en-US'], 'zh-CN')).toBe('zh-CN');
    expect(chooseLocale(['zh-CN'], 'en')).toBe('en');
    expect(chooseLocale(['zh-CN'], 'klingon')).toBe('zh-CN'); // a stored value it does not know is ignored
  });
});

describe('t', () => {
  it('fills in {parameters} and leaves an unknown one as written', () => {
    expect(interpolate('{a} and {b}', { a: 1, b: 'x' })).toBe('1 and x');
    expect(interpolate('{a} and {c}', { a: 1 })).toBe('1 and {c}');
    expect(translate('en', 'stale.lost', { at: '14:02:17' })).toBe('Lost contact with the server at 14:02:17 UTC — retrying; data shown is from then.');
    expect(translate('zh-CN', 'stale.lost', { at: '14:02:17' })).toBe('于 14:02:17 UTC 与服务器失去连接，正在重试；当前显示的是那一刻的数据。');
  });
  it('picks the plural form of the count in English, the one form in Chinese', () => {
    expect(translate('en', 'count.ticks', { count: 1 })).toBe('1 tick');
    expect(translate('en', 'count.ticks', { count: 4 })).toBe('4 ticks');
    expect(translate('en', 'count.ticks', { count: 0 })).toBe('0 ticks');
    expect(translate('zh-CN', 'count.ticks', { count: 1 })).toBe('1 次触发');
    expect(translate('zh-CN', 'count.ticks', { count: 4 })).toBe('4 次触发');
  });
});

describe('the chosen locale in what the model and format.ts write', () => {
  // setLocale is the navigation's switch; the tests put English back after each use.
  it('formats dates in Chinese on the same UTC time base, and cron in words', async () => {
    const { setLocale } = await import('../src/i18n');
    const { fmtTime } = await import('../src/format');
    const { describeCron } = await import('../src/model/cron');
    try {
      expect(fmtTime('2026-11-28T20:15:00Z')).toBe('28 Nov 2026, 20:15 UTC');
      setLocale('zh-CN');
      expect(fmtTime('2026-11-28T20:15:00Z')).toBe('2026年11月28日 20:15 UTC');
      expect(describeCron('*/5 * * * *')).toBe('每 5 分钟');
      expect(describeCron('0 9 * * 1')).toBe('每周一 09:00');
    } finally {
      setLocale('en');
    }
    expect(describeCron('*/5 * * * *')).toBe('every 5 minutes');
  });
});
