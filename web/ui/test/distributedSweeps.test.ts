// The what-if page's sweeps on Kubernetes (src/model/distributedSweeps.ts, src/api/distributedSweeps.ts)
// on answers and events in the shapes of web/API.md, "Distributed sweeps".

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DistributedSweep } from '../src/api/types';
import { cancelDistributedSweep, fetchDistributedSweeps } from '../src/api/distributedSweeps';
import { applyDistributedSweepEvent, asStudy, cancelCommand, defaultOpenSweep, detailIsCurrent, cancelDialogLines, failedShardsText, newestSweepsFirst, parseDistributedSweep, sweepBadgeState, sweepFraction, sweepRunsInShardsText, sweepRunsText } from '../src/model/distributedSweeps';
import { translate, type T } from '../src/i18n/t';

const en: T = (k, p) => translate('en', k, p);
const zh: T = (k, p) => translate('zh-CN', k, p);

// As the server publishes it (sweep_coordinator.cpp, to_json without result).
const running: DistributedSweep = {
  id: 'sw-2-k3x9qa',
  name: 'placement-vs-load',
  file: 'my-sweeps/placement-vs-load.yaml',
  state: 'running',
  shards: 4,
  runs: { done: 30, total: 135 },
  created: '2026-11-28T06:30:00Z',
  ended: null,
  failures: [],
  result: null,
  report: null,
  charts: null,
  partial: null,
};

describe('parseDistributedSweep', () => {
  it('reads a DistributedSweep and refuses what is not one', () => {
    expect(parseDistributedSweep(running)).toEqual(running);
    expect(parseDistributedSweep(null)).toBeNull();
    expect(parseDistributedSweep('<html>')).toBeNull();
    expect(parseDistributedSweep({ ...running, state: 'queued' })).toBeNull();
    expect(parseDistributedSweep({ ...running, id: 7 })).toBeNull();
  });
  it('keeps every failure message and only well-formed charts', () => {
    const s = parseDistributedSweep({
      ...running,
      state: 'done',
      failures: [{ shard: 3, at: '2026-11-28T06:31:00Z', message: 'exit code 137: OOMKilled' }, null],
      report: 'sweep placement-vs-load\n',
      charts: [{ name: 'wait.p95.svg', svg: '<svg/>' }, { name: 1 }],
    });
    expect(s!.failures).toEqual([{ shard: 3, at: '2026-11-28T06:31:00Z', message: 'exit code 137: OOMKilled' }]);
    expect(s!.charts).toEqual([{ name: 'wait.p95.svg', svg: '<svg/>' }]);
    expect(s!.report).toBe('sweep placement-vs-load\n');
  });
});

describe('applyDistributedSweepEvent', () => {
  it('moves the progress of the sweep the event names', () => {
    const other = { ...running, id: 'sw-1-aaaaaa', name: 'other' };
    const list = [running, other];
    const after = applyDistributedSweepEvent(list, { ...running, runs: { done: 31, total: 135 } })!;
    expect(after[0].runs).toEqual({ done: 31, total: 135 });
    expect(after[1]).toBe(other);
  });
  it('adds a submitted sweep on top, newest first by the number of its id', () => {
    const fresh = { ...running, id: 'sw-10-zzzzzz', runs: { done: 0, total: 12 } };
    const after = applyDistributedSweepEvent([running], fresh)!;
    expect(after.map((s) => s.id)).toEqual(['sw-10-zzzzzz', 'sw-2-k3x9qa']);
    // sw-10 after sw-9: by number, not as text.
    expect(newestSweepsFirst([{ ...running, id: 'sw-9-a' }, { ...running, id: 'sw-10-b' }]).map((s) => s.id)).toEqual(['sw-10-b', 'sw-9-a']);
  });
  it('never goes back from the end, and keeps a done sweep report', () => {
    const done = { ...running, state: 'done' as const, runs: { done: 135, total: 135 }, report: 'r', charts: [] };
    expect(applyDistributedSweepEvent([done], running)).toEqual([done]);
    const cancelled = { ...running, state: 'cancelled' as const };
    expect(applyDistributedSweepEvent([cancelled], running)![0].state).toBe('cancelled');
    // A failure reported after the end is still shown; the report stays.
    const late = applyDistributedSweepEvent([done], { ...done, report: undefined, failures: [{ shard: 0, at: null, message: 'x' }] })!;
    expect(late[0].failures).toHaveLength(1);
    expect(late[0].report).toBe('r');
  });
  it('answers the same list for an event that changes nothing, and ignores what is not a sweep', () => {
    const list = [running];
    expect(applyDistributedSweepEvent(list, { ...running })).toBe(list);
    expect(applyDistributedSweepEvent(list, { id: 'x' })).toBe(list);
  });
});

describe('progress and text', () => {
  it('counts runs done of the total', () => {
    // 30 of 135 runs: 30 / 135 = 0.2222.
    expect(sweepFraction(running)).toBeCloseTo(0.2222, 4);
    expect(sweepFraction({ ...running, runs: { done: 0, total: 0 } })).toBe(0);
    expect(sweepFraction({ ...running, state: 'done' })).toBe(1);
    expect(sweepRunsText({ ...running, runs: { done: 1234, total: 5000 } }, en)).toBe('1,234 of 5,000 runs');
    expect(sweepRunsText({ ...running, runs: { done: 0, total: 1 } }, en)).toBe('0 of 1 run');
    expect(sweepRunsText({ ...running, runs: { done: 1234, total: 5000 } }, zh)).toBe('1,234 / 5,000 次运行');
    expect(sweepRunsText({ ...running, runs: { done: 0, total: 1 } }, zh)).toBe('0 / 1 次运行');
    // The result's head: 30 of 135 runs in 4 shards; one shard.
    expect(sweepRunsInShardsText(running, en)).toBe('30 of 135 runs in 4 shards');
    expect(sweepRunsInShardsText({ ...running, shards: 1 }, en)).toBe('30 of 135 runs in 1 shard');
    expect(sweepRunsInShardsText(running, zh)).toBe('30 / 135 次运行，分 4 个分片');
  });
  it('gives each state its badge', () => {
    expect(sweepBadgeState(running)).toBe('running');
    expect(sweepBadgeState({ ...running, state: 'done' })).toBe('succeeded');
    expect(sweepBadgeState({ ...running, state: 'cancelled' })).toBe('killed');
  });
  it('names the failed shards once each', () => {
    const failures = [3, 1, 3].map((shard) => ({ shard, at: null, message: 'm' }));
    expect(failedShardsText({ ...running, failures })).toBe('shards 1, 3');
    expect(failedShardsText({ ...running, failures: failures.slice(0, 1) })).toBe('shard 3');
    expect(failedShardsText(running)).toBe('');
  });
  it('says what cancelling does and how the Job goes', () => {
    const [lead, cluster] = cancelDialogLines(running);
    expect(lead).toContain('after 30 of 135 runs');
    expect(lead).toContain("every worker's token stops working");
    expect(lead).toContain('4 shards');
    expect(cluster).toContain('the Job and its pods stay there');
    expect(cancelCommand('sw-2-k3x9qa')).toMatch(/^gantry sweep cancel sw-2-k3x9qa --server \S+ --namespace NAMESPACE$/);
  });
  it('is a Sweep study for the report', () => {
    const s = asStudy({ ...running, state: 'done', runs: { done: 135, total: 135 }, report: 'r', charts: [{ name: 'a.svg', svg: '<svg/>' }] });
    expect(s).toMatchObject({ kind: 'Sweep', id: 'sw-2-k3x9qa', file: 'my-sweeps/placement-vs-load.yaml', state: 'done', done: 135, total: 135, report: 'r' });
  });
});

describe('the sweep open below the list', () => {
  it('is the newest not cancelled, and its detail must be of a done sweep once it is done', () => {
    const cancelled = { ...running, id: 'sw-3-c', state: 'cancelled' as const };
    const done = { ...running, id: 'sw-1-d', state: 'done' as const };
    expect(defaultOpenSweep([cancelled, running, done])).toBe(running);
    expect(defaultOpenSweep([cancelled])).toBeNull();
    expect(detailIsCurrent(running, undefined)).toBe(false);
    expect(detailIsCurrent(running, running)).toBe(true);
    // The list says done, the detail fetched is of the running sweep: fetch again.
    expect(detailIsCurrent({ ...running, state: 'done' }, running)).toBe(false);
    expect(detailIsCurrent({ ...running, state: 'done' }, { ...running, state: 'done' })).toBe(true);
  });
  it("shows a running sweep's figures so far as its report", () => {
    const partial = { result: { seeds: 3 }, report: 'sweep grid: 4 points × 3 seeds of ../quickstart.yaml; runs 4 of 12\n' };
    const parsed = parseDistributedSweep({ ...running, partial })!;
    expect(parsed.partial).toEqual(partial);
    const s = asStudy(parsed);
    expect(s.state).toBe('running');
    expect(s.report).toBe(partial.report);
    expect(s.charts).toBeNull();
    // Events carry no figures: the last ones fetched stay.
    const after = applyDistributedSweepEvent([parsed], { ...running, runs: { done: 31, total: 135 } })!;
    expect(after[0].partial).toEqual(partial);
  });
});

describe('client', () => {
  afterEach(() => vi.unstubAllGlobals());
  it('lists the sweeps newest first and cancels with DELETE', async () => {
    const calls: { url: string; method: string }[] = [];
    vi.stubGlobal('localStorage', { getItem: () => 't', setItem: () => {}, removeItem: () => {} });
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      calls.push({ url, method: init.method ?? 'GET' });
      const body = init.method === 'DELETE' ? { ...running, state: 'cancelled' } : { sweeps: [{ ...running, id: 'sw-1-a' }, running, { nonsense: true }] };
      return new Response(JSON.stringify(body), { status: 200 });
    });
    const list = await fetchDistributedSweeps();
    expect(list.map((s) => s.id)).toEqual(['sw-2-k3x9qa', 'sw-1-a']);
    const after = await cancelDistributedSweep('sw-2-k3x9qa');
    expect(after.state).toBe('cancelled');
    expect(calls).toEqual([
      { url: '/api/v1/distributed-sweeps', method: 'GET' },
      { url: '/api/v1/distributed-sweeps/sw-2-k3x9qa', method: 'DELETE' },
    ]);
  });
});
