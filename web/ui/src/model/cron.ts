// The next firing instants of a pipeline's schedule, computed in the browser while the user
// types (croner, with the same daylight-saving rule as workflow/cron/cron.hpp: fixed-time jobs
// fire once in a gap or overlap, wildcard jobs follow the wall clock). The server's nextTicks,
// returned by every dry run, replace them as soon as they arrive.

import { Cron } from 'croner';
import { t } from '../i18n/t';

export interface TickResult {
  ticks: Date[];
  error: string | null;
}

const kMacros = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

export function checkCron(expression: string): string | null {
  const text = expression.trim();
  if (!text) return 'expected a cron expression such as "0 3 * * *" or @daily';
  if (text.startsWith('@')) {
    if (text === '@reboot') return '@reboot is not a schedule';
    return kMacros.has(text) ? null : `unknown macro ${text}; expected one of ${[...kMacros].join(', ')}`;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5) return `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  try {
    new Cron(text, { mode: '5-part', paused: true });
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^CronPattern: /, '');
  }
}

export function checkTimezone(zone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return null;
  } catch {
    return `unknown time zone "${zone}"; expected an IANA name such as Europe/Paris`;
  }
}

// Up to `count` ticks at or after max(start, from), not after `end`.
export function nextTicks(
  expression: string,
  timezone = 'UTC',
  opts: { from?: Date; start?: string; end?: string; count?: number } = {},
): TickResult {
  const error = checkCron(expression) ?? checkTimezone(timezone);
  if (error) return { ticks: [], error };
  const from = opts.from ?? new Date();
  const start = opts.start ? new Date(opts.start) : null;
  // "at or after": croner's nextRuns is strictly after its argument.
  const after = new Date(Math.max(from.getTime(), start && !Number.isNaN(start.getTime()) ? start.getTime() : 0) - 1);
  try {
    const cron = new Cron(expression.trim(), {
      timezone,
      mode: '5-part',
      paused: true,
      fixedTimeRule: 'no-wildcard',
    });
    const end = opts.end ? new Date(opts.end) : null;
    const ticks = cron.nextRuns(opts.count ?? 5, after).filter((d) => !end || d.getTime() <= end.getTime());
    return { ticks, error: null };
  } catch (e) {
    return { ticks: [], error: (e as Error).message };
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

// A short English reading of common expressions; the expression itself otherwise.
export function describeCron(expression: string): string {
  const text = expression.trim();
  const macros: Record<string, string> = {
    '@yearly': t('cron.yearly'),
    '@annually': t('cron.yearly'),
    '@monthly': t('cron.monthlyFirst'),
    '@weekly': t('cron.weeklySunday'),
    '@daily': t('cron.daily', { time: '00:00' }),
    '@midnight': t('cron.daily', { time: '00:00' }),
    '@hourly': t('cron.hourly', { mm: '00' }),
  };
  if (macros[text]) return macros[text];
  const p = text.split(/\s+/);
  if (p.length !== 5) return text;
  const [mi, h, dom, mon, dow] = p;
  const num = (s: string) => /^\d+$/.test(s);
  const allDays = dom === '*' && mon === '*';
  if (/^\*\/\d+$/.test(mi) && h === '*' && allDays && dow === '*') return t('cron.everyMinutes', { n: mi.slice(2) });
  if (mi === '*' && h === '*' && allDays && dow === '*') return t('cron.everyMinute');
  if (num(mi) && h === '*' && allDays && dow === '*') return t('cron.hourly', { mm: pad(Number(mi)) });
  if (num(mi) && /^\*\/\d+$/.test(h) && allDays && dow === '*') return t('cron.everyHours', { n: h.slice(2), mm: pad(Number(mi)) });
  if (num(mi) && num(h) && allDays && dow === '*') return t('cron.daily', { time: `${pad(Number(h))}:${pad(Number(mi))}` });
  if (num(mi) && num(h) && allDays && dow === '1-5') return t('cron.weekdays', { time: `${pad(Number(h))}:${pad(Number(mi))}` });
  if (num(mi) && num(h) && allDays && num(dow)) return t('cron.weekly', { day: t(`cron.day${Number(dow) % 7}` as 'cron.day0'), time: `${pad(Number(h))}:${pad(Number(mi))}` });
  if (num(mi) && num(h) && num(dom) && mon === '*' && dow === '*') return t('cron.monthly', { dom, time: `${pad(Number(h))}:${pad(Number(mi))}` });
  return text;
}
