// Next ticks computed in the browser, against the firing instants worked out by hand in the
// opening comments of scenarios/pipelines/dst-spring-forward.yaml and dst-fall-back.yaml
// (Gantry's rule, workflow/cron/cron.hpp).

import { describe, expect, it } from 'vitest';
import { nextTicks, checkCron, describeCron } from '../src/model/cron';

const iso = (ds: Date[]) => ds.map((d) => d.toISOString().replace('.000Z', 'Z'));

describe('nextTicks', () => {
  it('spring forward: a fixed-time job in the gap fires once at its end', () => {
    // nightly-0230: 2026-03-07 07:30Z; 2026-03-08 in the gap, so 07:00Z; 2026-03-09 06:30Z.
    const r = nextTicks('30 2 * * *', 'America/New_York', { from: new Date('2026-03-07T00:00:00Z'), count: 3 });
    expect(r.error).toBeNull();
    expect(iso(r.ticks)).toEqual(['2026-03-07T07:30:00Z', '2026-03-08T07:00:00Z', '2026-03-09T06:30:00Z']);
  });

  it('spring forward: a wildcard job keeps real spacing', () => {
    // half-hourly-spring, start 06:00Z, end 08:00Z: 06:00, 06:30, 07:00, 07:30, 08:00.
    const r = nextTicks('*/30 * * * *', 'America/New_York', {
      from: new Date('2026-03-01T00:00:00Z'),
      start: '2026-03-08T06:00:00Z',
      end: '2026-03-08T08:00:00Z',
      count: 10,
    });
    expect(iso(r.ticks)).toEqual(['2026-03-08T06:00:00Z', '2026-03-08T06:30:00Z', '2026-03-08T07:00:00Z', '2026-03-08T07:30:00Z', '2026-03-08T08:00:00Z']);
  });

  it('fall back: a fixed-time job in the overlap fires once, at the first occurrence', () => {
    // nightly-0130: 2026-10-31 05:30Z, 2026-11-01 05:30Z (not 06:30Z), 2026-11-02 06:30Z.
    const r = nextTicks('30 1 * * *', 'America/New_York', { from: new Date('2026-10-31T00:00:00Z'), count: 3 });
    expect(iso(r.ticks)).toEqual(['2026-10-31T05:30:00Z', '2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z']);
  });

  it('fall back: a wildcard job fires at both readings of the repeated hour', () => {
    // half-hourly-fall: 05:00, 05:30, 06:00, 06:30, 07:00 Z.
    const r = nextTicks('*/30 * * * *', 'America/New_York', { from: new Date('2026-11-01T05:00:00Z'), end: '2026-11-01T07:00:00Z', count: 10 });
    expect(iso(r.ticks)).toEqual(['2026-11-01T05:00:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:00:00Z', '2026-11-01T06:30:00Z', '2026-11-01T07:00:00Z']);
  });

  it('starts at the schedule start when it is later than now, inclusive', () => {
    const r = nextTicks('0 * * * *', 'UTC', { from: new Date('2026-01-01T00:00:00Z'), start: '2026-03-02T05:00:00Z', count: 2 });
    expect(iso(r.ticks)).toEqual(['2026-03-02T05:00:00Z', '2026-03-02T06:00:00Z']);
  });

  it('reports bad expressions and zones', () => {
    expect(nextTicks('0 24 * * *').error).toMatch(/hour/i);
    expect(nextTicks('0 0 * * *', 'Mars/Olympus').error).toMatch(/time zone/);
    expect(checkCron('0 0 * * * *')).toMatch(/5 fields/);
    expect(checkCron('@reboot')).toMatch(/not a schedule/);
    expect(checkCron('@daily')).toBeNull();
  });
});

describe('describeCron', () => {
  it('reads common expressions', () => {
    expect(describeCron('*/10 * * * *')).toBe('every 10 minutes');
    expect(describeCron('0 * * * *')).toBe('every hour at :00');
    expect(describeCron('30 1 * * *')).toBe('daily at 01:30');
    expect(describeCron('0 9 * * 1-5')).toBe('weekdays at 09:00');
    expect(describeCron('@daily')).toBe('daily at 00:00');
    expect(describeCron('5 4 * 2 0')).toBe('5 4 * 2 0');
  });
});
