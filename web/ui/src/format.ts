// Times and sizes as the pages show them. "Now" is the server's (api/session.ts): a server
// at --speed 60 runs ahead of the browser's clock.

import { serverNow, serverSpeed } from './api/session';
import { intlLocale } from './i18n/locale';
import { t } from './i18n/t';

export function fmtTime(iso: string | null | undefined, zone?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(intlLocale(), {
    timeZone: zone ?? 'UTC',
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(zone && zone !== 'UTC' ? { timeZoneName: 'short' } : {}),
  }).format(d) + (zone && zone !== 'UTC' ? '' : ' UTC');
}

export function fmtShort(iso: string | null | undefined, zone = 'UTC'): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return new Intl.DateTimeFormat(intlLocale(), { timeZone: zone, month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(d);
}

export function fmtZoned(d: Date, zone: string): string {
  return new Intl.DateTimeFormat(intlLocale(), {
    timeZone: zone,
    weekday: 'short',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(d);
}

export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function fmtSeconds(s: number | undefined): string {
  return s === undefined ? '—' : fmtDuration(s * 1000);
}

export function fmtRelative(iso: string | null | undefined, now = serverNow()): string {
  if (!iso) return '';
  const diff = new Date(iso).getTime() - now;
  // The server's clock is known to a fraction of a wall second, which is minutes of a fast
  // simulated clock: closer than a quarter of a wall second is "now".
  if (Math.abs(diff) < 250 * serverSpeed()) return t('rel.now');
  const abs = Math.abs(diff);
  const [n, unit] = abs < 60e3 ? [Math.round(abs / 1e3), 's'] : abs < 3600e3 ? [Math.round(abs / 60e3), 'min'] : abs < 86400e3 ? [Math.round(abs / 3600e3), 'h'] : [Math.round(abs / 86400e3), 'd'];
  const params = { n, unit: t(`unit.${unit}` as 'unit.s') };
  return diff >= 0 ? t('rel.in', params) : t('rel.ago', params);
}

// How long ago, without "ago": the age of a waiting gang ("3 min").
export function fmtAge(iso: string | null | undefined, now = serverNow()): string {
  if (!iso) return '';
  const abs = Math.abs(new Date(iso).getTime() - now);
  const [n, unit] = abs < 60e3 ? [Math.round(abs / 1e3), 's'] : abs < 3600e3 ? [Math.round(abs / 60e3), 'min'] : abs < 86400e3 ? [Math.round(abs / 3600e3), 'h'] : [Math.round(abs / 86400e3), 'd'];
  return t('rel.age', { n, unit: t(`unit.${unit}` as 'unit.s') });
}

export function fmtBytes(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = b;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function pct(x: number, digits = 1): string {
  return `${(x * 100).toFixed(digits)}%`;
}
