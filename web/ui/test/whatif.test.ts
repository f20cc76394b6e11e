// The what-if page's services comparison (src/model/whatif.ts) on a small hand-made fixture in
// the shapes of web/API.md: a result of `gantry simulate --format json` with services and the
// series of GET /simulations/{id}/series. Every expected value is worked out in the comments.

import { describe, expect, it } from 'vitest';
import type { ServiceResult, SimulationResult, SimulationSeries } from '../src/api/types';
import { setLocale } from '../src/i18n/locale';
import { allocationData, clusterRows, compareSeeds, delta, fmtLatency, hasJobs, hasServices, p99Option, qpsOption, replicasOption, serviceBlocks, serviceNames, serviceSummary, toHours } from '../src/model/whatif';
import type { ChartInput } from '../src/model/whatif';

const zeros = { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };

function service(over: Partial<ServiceResult>): ServiceResult {
  return {
    name: 'code',
    requests: 1000,
    p50_s: 1.25,
    p99_s: 8,
    slo_attainment: 0.9,
    gpu_hours: 10,
    cold_starts: 4,
    max_replicas: 6,
    slo_p99_s: 5,
    unserved: 0,
    cold_start_p50_s: 46,
    predictors: [{ name: 'v1', traffic_percent: 100, requests: 1000, p99_s: 8, cold_starts: 4, max_replicas: 6 }],
    ...over,
  };
}

// A services-only scenario: no jobs, 1 h from midnight.
function result(services: ServiceResult[], gpu = { allocation_ratio: 0.5, busy_ratio: 0.4 }): SimulationResult {
  return {
    scenario: 'x',
    start: '2026-01-01T00:00:00Z',
    end: '2026-01-01T01:00:00Z',
    jobs: { total: 0, finished: 0, running_at_end: 0, queued_at_end: 0 },
    jct_s: zeros,
    wait_s: zeros,
    gpu,
    services,
  };
}

const A = result([service({})]);
// B: 8 % fewer GPU-hours, 2.5 points more within the SLO, p99 halved, 30 times the cold starts.
const B = result([service({ p50_s: 1.5, p99_s: 4, slo_attainment: 0.925, gpu_hours: 9.2, cold_starts: 120, cold_start_p50_s: 25, max_replicas: 6 })], { allocation_ratio: 0.46, busy_ratio: 0.4 });

describe('delta (B against A)', () => {
  it('is relative, green when better by more than half a percent', () => {
    // (9.2 - 10) / 10 = -8 %, fewer GPU-hours is better.
    expect(delta(10, 9.2, 'lower')).toEqual({ text: '-8.0%', tone: 'good' });
    // (1.5 - 1.25) / 1.25 = +20 %, a higher latency is worse.
    expect(delta(1.25, 1.5, 'lower')).toEqual({ text: '+20.0%', tone: 'bad' });
    // 1000 -> 1004: +0.4 %, under the half percent: not coloured.
    expect(delta(1000, 1004, 'lower')).toEqual({ text: '+0.4%', tone: '' });
    // 'none' is never coloured.
    expect(delta(6, 12, 'none')).toEqual({ text: '×2.0', tone: '' });
  });
  it('says "×n" from twice A up, and the difference from A = 0', () => {
    // 120 / 4 = 30.
    expect(delta(4, 120, 'lower')).toEqual({ text: '×30', tone: 'bad' });
    // 4 / 3 = 1.33..., +33.3 %.
    expect(delta(3, 4, 'lower')?.text).toBe('+33.3%');
    expect(delta(0, 5, 'lower')).toEqual({ text: '+5', tone: 'bad' });
    expect(delta(0, 0, 'lower')).toEqual({ text: '', tone: '' });
    expect(delta(undefined, 5, 'lower')).toBeNull();
    expect(delta(0.5, null, 'lower')).toBeNull();
  });
  it('gives shares in percentage points', () => {
    // 0.925 - 0.9 = 0.025 = +2.5 points, higher is better.
    expect(delta(0.9, 0.925, 'higher', 'pp')).toEqual({ text: '+2.5 pp', tone: 'good' });
    expect(delta(0.933, 0.834, 'higher', 'pp')).toEqual({ text: '-9.9 pp', tone: 'bad' });
  });
});

describe('fmtLatency', () => {
  it('picks a unit and precision by size', () => {
    expect(fmtLatency(0.0425)).toBe('43 ms');
    expect(fmtLatency(1.253375)).toBe('1.25 s');
    expect(fmtLatency(5)).toBe('5 s');
    expect(fmtLatency(14.483455)).toBe('14.5 s');
    expect(fmtLatency(162.529279)).toBe('163 s');
    // 1,800 s = 30 min.
    expect(fmtLatency(1800)).toBe('30 min');
    expect(fmtLatency(null)).toBe('—');
  });
});

describe('what a result has', () => {
  it('a services-only scenario has services and no jobs', () => {
    expect(hasServices(A)).toBe(true);
    expect(hasJobs(A)).toBe(false);
    expect(hasJobs({ ...A, jobs: { total: 600, finished: 600, running_at_end: 0, queued_at_end: 0 } })).toBe(true);
    expect(hasServices({ ...A, services: [] })).toBe(false);
  });
});

describe('serviceBlocks', () => {
  it('compares one service metric by metric', () => {
    const [blk] = serviceBlocks(A, B);
    expect(blk.name).toBe('code');
    expect(blk.slo).toBe('p99 within 5 s');
    expect(blk.only).toBeNull();
    // No unserved request on either side: no row; one predictor: no sub-rows.
    expect(blk.rows.map((r) => r.id)).toEqual(['requests', 'p50', 'p99', 'slo', 'gpu_hours', 'cold_starts', 'cold_start_p50', 'max_replicas']);
    const row = (id: string) => blk.rows.find((r) => r.id === id)!;
    expect(row('requests')).toMatchObject({ a: '1,000', b: '1,000', delta: { text: '0.0%', tone: '' } });
    // 8 s -> 4 s: -50 %.
    expect(row('p99')).toMatchObject({ a: '8 s', b: '4 s', delta: { text: '-50.0%', tone: 'good' } });
    expect(row('slo')).toMatchObject({ label: 'Within SLO', a: '90.0%', b: '92.5%', delta: { text: '+2.5 pp', tone: 'good' } });
    expect(row('gpu_hours')).toMatchObject({ a: '10.0', b: '9.2', delta: { text: '-8.0%', tone: 'good' } });
    expect(row('cold_starts')).toMatchObject({ a: '4', b: '120', delta: { text: '×30', tone: 'bad' } });
    // 46 s -> 25 s: -21/46 = -45.65 %.
    expect(row('cold_start_p50')).toMatchObject({ a: '46 s', b: '25 s', delta: { text: '-45.7%', tone: 'good' } });
    expect(row('max_replicas').delta).toEqual({ text: '0.0%', tone: '' });
    // At a glance: GPU-hours, share within the SLO, p99, cold starts.
    expect(blk.headline.map((h) => `${h.delta.text} ${h.label}`)).toEqual(['-8.0% GPU-hours', '+2.5 pp within SLO', '-50.0% p99', '×30 cold starts']);
  });

  it('shows predictors as sub-rows when there is more than one, matched by name', () => {
    const canary = service({
      name: 'chat',
      max_replicas: 20,
      predictors: [
        { name: 'v1', traffic_percent: 90, requests: 900, p99_s: 1.19, cold_starts: 3, max_replicas: 10 },
        { name: 'v2', traffic_percent: 10, requests: 100, p99_s: 1.3, cold_starts: 1, max_replicas: 10 },
      ],
    });
    const [blk] = serviceBlocks(result([canary]), result([service({ name: 'chat' })]));
    const ids = blk.rows.map((r) => r.id);
    expect(ids.slice(8)).toEqual(['v1.', 'v1.requests', 'v1.p99', 'v1.cold_starts', 'v1.max_replicas', 'v2.', 'v2.requests', 'v2.p99', 'v2.cold_starts', 'v2.max_replicas']);
    expect(blk.rows.find((r) => r.id === 'v1.')).toMatchObject({ kind: 'predictor', label: 'Predictor v1', a: '90% of traffic', b: '100% of traffic', delta: null });
    // v1 on both sides: 900 -> 1000 requests, +11.1 % (not coloured); p99 1.19 s -> 8 s.
    expect(blk.rows.find((r) => r.id === 'v1.requests')).toMatchObject({ kind: 'predictor-metric', a: '900', b: '1,000', delta: { text: '+11.1%', tone: '' } });
    expect(blk.rows.find((r) => r.id === 'v1.p99')).toMatchObject({ a: '1.19 s', b: '8 s', delta: { tone: 'bad' } });
    // v2 only in A.
    expect(blk.rows.find((r) => r.id === 'v2.p99')).toMatchObject({ a: '1.3 s', b: '—', delta: null });
  });

  it('keeps a service of one side, shows no SLO and unserved requests', () => {
    const blocks = serviceBlocks(result([service({ slo_p99_s: null, unserved: 7, cold_start_p50_s: null, cold_starts: 0 })]), result([service({ name: 'chat' })]));
    expect(blocks.map((b) => [b.name, b.only])).toEqual([
      ['code', 'A'],
      ['chat', 'B'],
    ]);
    const code = blocks[0];
    expect(code.slo).toBe('no SLO');
    expect(code.headline).toEqual([]);
    // Neither side of 'code' has an SLO (B has no 'code'): no SLO row; no cold start: no median.
    expect(code.rows.map((r) => r.id)).toEqual(['requests', 'p50', 'p99', 'gpu_hours', 'cold_starts', 'max_replicas', 'unserved']);
    expect(code.rows.find((r) => r.id === 'unserved')).toMatchObject({ a: '7', b: '—', delta: null });
  });

  it('names different SLOs per side', () => {
    const [blk] = serviceBlocks(A, result([service({ slo_p99_s: null })]));
    expect(blk.slo).toBe('A: p99 within 5 s · B: none');
    expect(blk.rows.find((r) => r.id === 'slo')).toMatchObject({ a: '90.0%', b: 'no SLO', delta: null });
  });
});

describe('clusterRows and serviceSummary', () => {
  it('the GPU figures, not coloured', () => {
    expect(clusterRows(A, B).map((r) => [r.label, r.a, r.b, r.delta?.text, r.delta?.tone])).toEqual([
      // (0.46 - 0.5) / 0.5 = -8 %.
      ['GPU allocation', '50.0%', '46.0%', '-8.0%', ''],
      ['GPU busy', '40.0%', '40.0%', '0.0%', ''],
    ]);
  });
  it('sums a service up in a line', () => {
    expect(serviceSummary(A.services![0])).toBe('code: 1,000 requests · p99 8 s · 90.0% within 5 s · 10.0 GPU-hours');
    setLocale('zh-CN');
    try {
      expect(serviceSummary(A.services![0])).toBe('code: 1,000 个请求 · p99 8 s · 90.0% 在 5 s 内 · 10.0 GPU 小时');
    } finally {
      setLocale('en');
    }
    expect(serviceSummary(service({ slo_p99_s: null, gpu_hours: 1234.5 }))).toBe('code: 1,000 requests · p99 8 s · 1,235 GPU-hours');
  });
});

// Series: three 20-minute intervals of one hour.
const t = ['2026-01-01T00:00:00Z', '2026-01-01T00:20:00Z', '2026-01-01T00:40:00Z'];
function seriesOf(p99: (number | null)[], ready: number[], qps = [2, 3, 4]): SimulationSeries {
  return {
    gpuAllocation: [],
    jctCdf: [],
    waitCdf: [],
    unallocatedGpuPct: {},
    services: [{ name: 'code', qps: t.map((x, i) => [x, qps[i]]), p99: t.map((x, i) => [x, p99[i]]), ready: t.map((x, i) => [x, ready[i]]), starting: t.map((x) => [x, 0.5]) }],
  };
}
const inputs: ChartInput[] = [
  { key: 'A', result: A, series: seriesOf([2, null, 3], [1, 2, 3]) },
  { key: 'B', result: B, series: seriesOf([120, 4, 1], [2, 2, 2]) },
];
type S = { name: string; data: [number, number | null][]; lineStyle: { type?: string; color: string }; showSymbol: boolean };

describe('charts', () => {
  it('hours from the start', () => {
    // 20 min = 1/3 h, rounded to a millionth.
    expect(toHours(inputs[0].series!.services![0].ready, A.start)).toEqual([
      [0, 1],
      [0.333333, 2],
      [0.666667, 3],
    ]);
  });

  it('replicas: ready solid and starting dashed, A and B, up to the horizon', () => {
    const o = replicasOption('code', inputs) as unknown as { series: S[]; xAxis: { max: number } };
    expect(o.series.map((s) => s.name)).toEqual(['A ready', 'A starting', 'B ready', 'B starting']);
    expect(o.series[1].lineStyle.type).toBe('dashed');
    expect(o.series[0].lineStyle.type).toBeUndefined();
    expect(o.series[2].data.map(([, y]) => y)).toEqual([2, 2, 2]);
    expect(o.xAxis.max).toBe(1); // 00:00 to 01:00
  });

  it('p99: gaps as nulls, the SLO as a line, a log axis over a thirty-fold span', () => {
    const o = p99Option('code', inputs) as unknown as { series: S[]; yAxis: { type: string } };
    expect(o.series.map((s) => s.name)).toEqual(['A p99', 'B p99', 'SLO 5 s']);
    expect(o.series[0].data).toEqual([
      [0, 2],
      [0.333333, null],
      [0.666667, 3],
    ]);
    // A has a gap: its points get dots; B has none.
    expect([o.series[0].showSymbol, o.series[1].showSymbol]).toEqual([true, false]);
    // The SLO from 0 to the end of the horizon (1 h), at 5 s.
    expect(o.series[2].data).toEqual([
      [0, 5],
      [1, 5],
    ]);
    // 120 / 1 > 30: log.
    expect(o.yAxis.type).toBe('log');
    const flat: ChartInput[] = [{ key: 'A', result: A, series: seriesOf([2, 3, 4], [1, 1, 1]) }];
    // 2..5 (the SLO counts): linear.
    expect((p99Option('code', flat) as unknown as { yAxis: { type: string } }).yAxis.type).toBe('value');
  });

  it('request rate: one series when A and B saw the same load, else both', () => {
    const same = qpsOption('code', inputs) as unknown as { series: S[] };
    expect(same.series.map((s) => s.name)).toEqual(['requests/s (A and B)']);
    const other: ChartInput[] = [inputs[0], { key: 'B', result: B, series: seriesOf([1, 1, 1], [1, 1, 1], [2, 3, 5]) }];
    expect((qpsOption('code', other) as unknown as { series: S[] }).series.map((s) => s.name)).toEqual(['A requests/s', 'B requests/s']);
  });

  it('service names once each, A first', () => {
    expect(serviceNames(inputs)).toEqual(['code']);
    expect(serviceNames([inputs[0], { key: 'B', result: result([service({ name: 'chat' })]), series: null }])).toEqual(['code', 'chat']);
  });

  it('GPU allocation: time-weighted averages of a step series up to the end', () => {
    // 0.5 from 0:00, 1.0 from 0:30, to 1:00. In two half-hour buckets: 0.5 and 1.0; in four
    // quarter-hour buckets: 0.5, 0.5, 1, 1. A change at 0:10 to 0.2 then, in the first half
    // hour: (10 × 0.5 + 20 × 0.2) / 30 = 0.3.
    const pts: [string, number][] = [
      ['2026-01-01T00:00:00Z', 0.5],
      ['2026-01-01T00:30:00Z', 1],
    ];
    expect(allocationData(pts, A.start, A.end, 2)).toEqual([
      [0.25, 0.5],
      [0.75, 1],
    ]);
    expect(allocationData(pts, A.start, A.end, 4).map(([, y]) => y)).toEqual([0.5, 0.5, 1, 1]);
    const withDip: [string, number][] = [pts[0], ['2026-01-01T00:10:00Z', 0.2], pts[1]];
    expect(allocationData(withDip, A.start, A.end, 2)[0][1]).toBeCloseTo(0.3, 9);
    // Without the end: the points as they are.
    expect(allocationData(pts, A.start, undefined)).toEqual([
      [0, 0.5],
      [0.5, 1],
    ]);
  });
});

describe('compareSeeds (several seeds a side)', () => {
  const secs = (x: number) => `${x.toFixed(1)} s`;
  it('shows mean ± half-width and colours a difference whose interval excludes zero', () => {
    // A = 10, 11, 12, 13, 14: mean 12, variance 2.5, half-width 2.776 * sqrt(0.5) = 1.962929 -> "12.0 s ± 2.0 s".
    // B = 7..11: mean 9. B - A = -3; Welch df 8, half-width 2.306: interval -5.306 to -0.694, excludes 0;
    // lower is better, so green. Relative: (9 - 12) / 12 = -25.0%.
    const r = compareSeeds([10, 11, 12, 13, 14], [7, 8, 9, 10, 11], 'lower', secs);
    expect(r.a).toBe('12.0 s ± 2.0 s');
    expect(r.b).toBe('9.0 s ± 2.0 s');
    expect(r.delta).toBe('-25.0%');
    expect(r.tone).toBe('good');
    expect(r.title).toBe('B - A = -3.0 s, 95 % interval -5.3 s to -0.7 s (Welch, 5 and 5 seeds): excludes 0.');
  });
  it('leaves a difference inside the spread uncoloured', () => {
    // B = 9..13: mean 11, B - A = -1, interval -3.306 to 1.306: includes 0.
    const r = compareSeeds([10, 11, 12, 13, 14], [9, 10, 11, 12, 13], 'lower', secs);
    expect(r.delta).toBe('-8.3%');
    expect(r.tone).toBe('');
    expect(r.title).toContain('includes 0');
  });
  it('a worse B is red', () => {
    expect(compareSeeds([10, 11, 12, 13, 14], [7, 8, 9, 10, 11], 'higher', secs).tone).toBe('bad');
  });
  it('one seed a side: values as they are, no colour', () => {
    const r = compareSeeds([10], [5], 'lower', secs);
    expect([r.a, r.b, r.delta, r.tone]).toEqual(['10.0 s', '5.0 s', '-50.0%', '']);
    expect(compareSeeds([], [5], 'lower', secs).a).toBe('—');
  });
});

describe('serviceBlocks over several seeds', () => {
  // p99 of A over three seeds: 8, 9, 10 s (mean 9, variance 1, half-width 4.303 * sqrt(1/3) = 2.484);
  // of B: 4, 5, 6 s (mean 5). B - A = -4; Welch: se^2 = 1/3 + 1/3 = 0.666667, df = 0.444444 /
  // (2 * 0.111111 / 2) = 4, half-width 2.776 * 0.816497 = 2.266596: interval -6.27 to -1.73, green.
  // GPU-hours: A 10, 11, 12 and B 9.5, 11, 12.5 (mean 11 both): no difference, not coloured.
  const seedsA = [8, 9, 10].map((p99, i) => result([service({ p99_s: p99, gpu_hours: 10 + i })]));
  const seedsB = [4, 5, 6].map((p99, i) => result([service({ p99_s: p99, gpu_hours: [9.5, 11, 12.5][i] })]));
  it('shows means ± intervals and colours what the seeds cannot explain', () => {
    const [blk] = serviceBlocks(seedsA[0], seedsB[0], { a: seedsA, b: seedsB });
    const row = (id: string) => blk.rows.find((r) => r.id === id)!;
    expect(row('p99').a).toBe('9 s ± 2.48 s');
    expect(row('p99').b).toBe('5 s ± 2.48 s');
    expect(row('p99').delta).toEqual({ text: '-44.4%', tone: 'good' });
    expect(row('gpu_hours').delta).toEqual({ text: '0.0%', tone: '' });
    expect(blk.headline.find((h) => h.label === 'p99')!.delta.tone).toBe('good');
  });
  it('with one seed a side nothing is coloured (no interval to judge by)', () => {
    const [blk] = serviceBlocks(A, B, { a: [A], b: [B] });
    expect(blk.rows.find((r) => r.id === 'p99')!.delta).toEqual({ text: '-50.0%', tone: '' });
  });
});
