// The what-if page's sweeps and plans (src/model/studies.ts, src/api/studies.ts) on answers in the
// shapes of web/API.md, "Sweeps and plans": parsing, progress, catalog lines, refused runs as the
// CLI prints them, the charts as data URLs, and the client's requests against a stubbed fetch.

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Study, StudyFile } from '../src/api/types';
import { cancelStudy, fetchCatalog, fetchStudy, startStudy } from '../src/api/studies';
import { setLocale } from '../src/i18n/locale';
import { applyStudyEvent, chartTitle, newestFirst, parseStudy, studyCancelledText, studyErrorLines, studyFraction, studyInProgress, studyProgressText, studySummary, svgDataUrl } from '../src/model/studies';
import { translate, type T } from '../src/i18n/t';

const en: T = (k, p) => translate('en', k, p);
const zh: T = (k, p) => translate('zh-CN', k, p);

const running: Study = {
  id: 'sweep-1',
  kind: 'Sweep',
  name: 'placement-vs-load',
  file: 'sweeps/placement-vs-load.yaml',
  state: 'running',
  done: 11,
  total: 135,
  progress: 11 / 135,
  created: '2026-11-28T02:54:51Z',
  error: null,
  result: null,
  report: null,
  charts: null,
};

describe('parseStudy', () => {
  it('reads a Study and refuses what is not one', () => {
    expect(parseStudy(running)).toEqual(running);
    expect(parseStudy(null)).toBeNull();
    expect(parseStudy('<html>')).toBeNull();
    expect(parseStudy({ ...running, kind: 'Scenario' })).toBeNull();
    expect(parseStudy({ ...running, state: 'exploded' })).toBeNull();
    expect(parseStudy({ ...running, id: 3 })).toBeNull();
  });
  it('keeps only well-formed charts and fills what is missing', () => {
    const s = parseStudy({ id: 'plan-2', kind: 'Plan', state: 'done', report: 'plan p\n', charts: [{ name: 'frontier.svg', svg: '<svg/>' }, { name: 3 }, null] });
    expect(s).not.toBeNull();
    expect(s!.charts).toEqual([{ name: 'frontier.svg', svg: '<svg/>' }]);
    expect(s!.name).toBe('plan-2');
    expect(s!.done).toBe(0);
    expect(s!.report).toBe('plan p\n');
    expect(s!.error).toBeNull();
  });
});

describe('progress', () => {
  it('counts the run under way as done + 1', () => {
    // 11 of 135 runs done: the 12th is under way; 11 / 135 = 0.0815.
    expect(studyProgressText(running, en)).toBe('Run 12 of 135');
    expect(studyFraction(running)).toBeCloseTo(0.0815, 4);
    expect(studyProgressText({ ...running, kind: 'Plan', done: 1, total: 3 }, en)).toBe('Forecast step 2 of 3');
    expect(studyProgressText({ ...running, done: 135 }, en)).toBe('Run 135 of 135');
    expect(studyProgressText({ ...running, done: 1233, total: 5000 }, en)).toBe('Run 1,234 of 5,000');
    expect(studyProgressText({ ...running, state: 'queued', done: 0 }, en)).toBe('Waiting for the sweep worker…');
    expect(studyProgressText({ ...running, kind: 'Plan', state: 'queued' }, en)).toBe('Waiting for the plan worker…');
    expect(studyProgressText({ ...running, state: 'failed' }, en)).toBe('failed');
  });
  it('says the same lines in Chinese', () => {
    expect(studyProgressText(running, zh)).toBe('第 12 次运行，共 135 次');
    expect(studyProgressText({ ...running, kind: 'Plan', done: 1, total: 3 }, zh)).toBe('预测第 2 步，共 3 步');
    expect(studyProgressText({ ...running, done: 1233, total: 5000 }, zh)).toBe('第 1,234 次运行，共 5,000 次');
    expect(studyProgressText({ ...running, state: 'queued', done: 0 }, zh)).toBe('等待扫描执行器…');
    expect(studyProgressText({ ...running, kind: 'Plan', state: 'queued' }, zh)).toBe('等待规划执行器…');
    expect(studyProgressText({ ...running, state: 'failed' }, zh)).toBe('失败');
  });
  it('says how far a cancelled one went, in both languages', () => {
    // 11 of 135 runs done when cancelled; a plan of 3 steps cancelled after 1, and after 0 of 1.
    const cancelled: Study = { ...running, state: 'cancelled' };
    expect(studyCancelledText(cancelled, en)).toBe('Cancelled after 11 of 135 runs: nothing to report.');
    expect(studyCancelledText({ ...cancelled, kind: 'Plan', done: 1, total: 3 }, en)).toBe('Cancelled after 1 of 3 forecast steps: nothing to report.');
    expect(studyCancelledText({ ...cancelled, kind: 'Plan', done: 0, total: 1 }, en)).toBe('Cancelled after 0 of 1 forecast step: nothing to report.');
    expect(studyCancelledText(cancelled, zh)).toBe('已在完成 11 / 135 次运行后取消：没有报告。');
    expect(studyCancelledText({ ...cancelled, kind: 'Plan', done: 1, total: 3 }, zh)).toBe('已在完成 1 / 3 个预测步骤后取消：没有报告。');
  });
  it('is 0 without a total and 1 when done', () => {
    expect(studyFraction({ ...running, total: 0 })).toBe(0);
    expect(studyFraction({ ...running, state: 'done' })).toBe(1);
    expect(studyInProgress(running)).toBe(true);
    expect(studyInProgress({ ...running, state: 'failed' })).toBe(false);
    expect(studyInProgress(null)).toBe(false);
  });
  it('applies events of the study shown only, and never after it ended', () => {
    const event = { ...running, done: 40, progress: 40 / 135 };
    expect(applyStudyEvent(running, event)!.done).toBe(40);
    expect(applyStudyEvent(running, { ...event, id: 'sweep-2' })).toBe(running);
    const done = { ...running, state: 'done' as const, done: 135 };
    expect(applyStudyEvent(done, event)).toBe(done);
    expect(applyStudyEvent(null, event)).toBeNull();
    expect(applyStudyEvent(running, { junk: true })).toBe(running);
  });
});

describe('studySummary', () => {
  const sweep: StudyFile = { name: 'placement-vs-load', file: 'sweeps/placement-vs-load.yaml', kind: 'Sweep', description: '', error: null, base: '../quickstart.yaml', axes: ['placement', 'load', 'nodes'], points: 27, seeds: 5, runs: 135, metrics: ['wait.p95'] };
  it('says what a sweep runs', () => {
    expect(studySummary(sweep)).toBe('27 points × 5 seeds = 135 runs · varies placement, load, nodes · of ../quickstart.yaml');
    expect(studySummary({ ...sweep, points: 1, seeds: 1, runs: 1, axes: ['p'], base: undefined })).toBe('1 point × 1 seed = 1 run · varies p');
  });
  it('says what a plan sizes', () => {
    const plan: StudyFile = { name: 'next-year', file: 'plans/next-year.yaml', kind: 'Plan', description: '', error: null, base: 'two-generations.yaml', pools: ['hgx-h100', 'dgx-a100'], growth: [1, 1.25, 1.5] };
    expect(studySummary(plan)).toBe('pools hgx-h100, dgx-a100 · growth 1×, 1.25×, 1.5× · of two-generations.yaml');
  });
  it('is empty for a file that cannot run', () => {
    expect(studySummary({ ...sweep, error: 'sweeps/x.yaml:6:10: spec.seeds: ...' })).toBe('');
  });
  it('says it in Chinese when zh-CN is chosen', () => {
    const plan: StudyFile = { name: 'next-year', file: 'plans/next-year.yaml', kind: 'Plan', description: '', error: null, base: 'two-generations.yaml', pools: ['hgx-h100', 'dgx-a100'], growth: [1, 1.25, 1.5] };
    setLocale('zh-CN');
    try {
      expect(studySummary({ ...sweep, points: 1200, runs: 6000 })).toBe('1,200 个点 × 5 个种子，共 6,000 次运行 · 变化 placement, load, nodes · 基于 ../quickstart.yaml');
      expect(studySummary(plan)).toBe('节点池 hgx-h100, dgx-a100 · 增长 1×, 1.25×, 1.5× · 基于 two-generations.yaml');
    } finally {
      setLocale('en');
    }
  });
});

describe('studyErrorLines', () => {
  it('prints validation errors as file:line:col: path: message', () => {
    const body = { errors: [{ file: 'sweeps/typo.yaml', line: 10, column: 23, path: 'spec.axes[0].values[1]', message: "'binpak' at spec.policy.placement: unknown placement" }] };
    expect(studyErrorLines('1 validation error', body)).toEqual(["sweeps/typo.yaml:10:23: spec.axes[0].values[1]: 'binpak' at spec.policy.placement: unknown placement"]);
  });
  it("falls back to the server's message, then the client's", () => {
    expect(studyErrorLines('HTTP 429', { error: { code: 'busy', message: 'already 8 sweeps and plans queued' } })).toEqual(['already 8 sweeps and plans queued']);
    expect(studyErrorLines('The server cannot be reached.', null)).toEqual(['The server cannot be reached.']);
  });
});

describe('svgDataUrl', () => {
  it('makes an image URL that carries the SVG byte for byte', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>p95 # 50% & <b></text></svg>';
    const url = svgDataUrl(svg);
    expect(url.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
    // Nothing that would end the attribute or start a fragment survives unencoded.
    expect(url).not.toMatch(/[<>"#&\s]/);
    expect(decodeURIComponent(url.slice('data:image/svg+xml;charset=utf-8,'.length))).toBe(svg);
  });
  it('names a chart after its file', () => {
    expect(chartTitle({ name: 'wait.p95.svg', svg: '' })).toBe('wait.p95');
  });
});

describe('the client', () => {
  afterEach(() => vi.unstubAllGlobals());
  function stub(answers: Record<string, { status: number; body: unknown }>) {
    const calls: { url: string; method: string; body?: string }[] = [];
    vi.stubGlobal('localStorage', { getItem: () => 'gty_test', setItem: () => {}, removeItem: () => {} });
    vi.stubGlobal('sessionStorage', { getItem: () => null, setItem: () => {}, removeItem: () => {} });
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      calls.push({ url, method: init.method ?? 'GET', body: init.body as string | undefined });
      const a = answers[`${init.method ?? 'GET'} ${url}`] ?? { status: 404, body: { error: { code: 'not_found', message: 'no route' } } };
      return new Response(JSON.stringify(a.body), { status: a.status });
    });
    return calls;
  }

  it('lists, starts, reads and cancels', async () => {
    const calls = stub({
      'GET /api/v1/sweeps/catalog': { status: 200, body: { sweeps: [{ name: 's', kind: 'Sweep' }] } },
      'GET /api/v1/plans/catalog': { status: 200, body: { plans: [] } },
      'POST /api/v1/plans': { status: 202, body: { ...running, id: 'plan-1', kind: 'Plan', state: 'queued' } },
      'GET /api/v1/sweeps/sweep-1': { status: 200, body: running },
      'DELETE /api/v1/sweeps/sweep-1': { status: 200, body: { deleted: 'sweep-1' } },
    });
    expect((await fetchCatalog('Sweep')).map((f) => f.name)).toEqual(['s']);
    expect(await fetchCatalog('Plan')).toEqual([]);
    const started = await startStudy('Plan', 'next-year');
    expect(started.id).toBe('plan-1');
    expect(calls[2]).toEqual({ url: '/api/v1/plans', method: 'POST', body: '{"planName":"next-year"}' });
    expect((await fetchStudy('Sweep', 'sweep-1')).done).toBe(11);
    await cancelStudy('Sweep', 'sweep-1');
    expect(calls[4].method).toBe('DELETE');
  });

  it('gives a refused run its validation errors', async () => {
    const body = { errors: [{ file: 'sweeps/typo.yaml', line: 10, column: 23, path: 'spec.axes[0].values[1]', message: 'unknown placement' }] };
    stub({ 'POST /api/v1/sweeps': { status: 400, body } });
    const err = await startStudy('Sweep', 'typo').catch((e) => e);
    expect(studyErrorLines(err.message, err.body)).toEqual(['sweeps/typo.yaml:10:23: spec.axes[0].values[1]: unknown placement']);
  });

  it('refuses an answer that is no study', async () => {
    stub({ 'GET /api/v1/sweeps/sweep-9': { status: 200, body: { hello: 'proxy' } } });
    await expect(fetchStudy('Sweep', 'sweep-9')).rejects.toThrow('not a sweep or plan');
  });
});

describe('newestFirst', () => {
  it('orders sweeps and plans by creation, then by id number', () => {
    const at = (id: string, created: string): Study => ({ ...running, id, created });
    const list = [at('sweep-1', '2026-11-28T02:54:51.1Z'), at('plan-1', '2026-11-28T02:54:51.15Z'), at('sweep-3', '2026-11-28T03:00:00Z'), at('sweep-2', '2026-11-28T03:00:00Z')];
    // .1 s < .15 s, though ".1Z" sorts after ".15Z" as text; sweep-3 and sweep-2 at the
    // same time: the higher number first.
    expect(newestFirst(list).map((s) => s.id)).toEqual(['sweep-3', 'sweep-2', 'plan-1', 'sweep-1']);
  });
});
