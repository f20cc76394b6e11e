// The what-if page's "Sweeps on Kubernetes" as HTML (react-dom/server, no browser): each state's
// badge and button, the progress bar moved by a `distributed-sweep` event, every shard failure's
// message, the empty state, the cancel dialog's text, and a done sweep's report drawn by
// StudiesSection's StudyReport.

import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { DistributedSweep } from '../src/api/types';
import { setLocale } from '../src/i18n/locale';
import { applyDistributedSweepEvent, asStudy, cancelDialogLines } from '../src/model/distributedSweeps';
import { CancelSweepDialog, DistributedSweepDetail, DistributedSweepsTable } from '../src/pages/DistributedSweepsSection';
import { StudyReport } from '../src/pages/StudiesSection';

const running: DistributedSweep = {
  id: 'sw-2-k3x9qa',
  name: 'placement-vs-load',
  file: 'my-sweeps/placement-vs-load.yaml',
  state: 'running',
  shards: 4,
  runs: { done: 30, total: 120 },
  created: '2026-11-28T06:30:00Z',
  ended: null,
  failures: [],
  result: null,
  report: null,
  charts: null,
  partial: null,
};
const done: DistributedSweep = { ...running, id: 'sw-1-aaaaaa', name: 'pools', state: 'done', runs: { done: 12, total: 12 }, ended: '2026-11-28T06:20:00Z' };
const cancelled: DistributedSweep = { ...running, id: 'sw-0-bbbbbb', name: 'stopped', state: 'cancelled' };

const table = (list: DistributedSweep[], canWrite = true) => renderToStaticMarkup(<DistributedSweepsTable list={list} canWrite={canWrite} openId={null} onOpen={() => {}} onCancel={() => {}} />);
// The row of one sweep in the markup.
const rowOf = (html: string, id: string) => {
  const at = html.indexOf(`data-sweep="${id}"`);
  expect(at).toBeGreaterThan(-1);
  return html.slice(at, html.indexOf('</tr>', at));
};

describe('the list', () => {
  it('shows each state with its badge, and Cancel only for a running sweep', () => {
    const html = table([running, done, cancelled]);
    const r = rowOf(html, running.id);
    expect(r).toContain('data-state="running"');
    expect(r).toContain('>running</span>');
    expect(r).toContain('cancel-dsweep-sw-2-k3x9qa');
    const d = rowOf(html, done.id);
    expect(d).toContain('class="badge s-succeeded"');
    expect(d).toContain('>done</span>');
    expect(d).toContain('Report');
    expect(d).not.toContain('cancel-dsweep');
    const c = rowOf(html, cancelled.id);
    expect(c).toContain('class="badge s-killed"');
    expect(c).toContain('no report');
    expect(c).not.toContain('cancel-dsweep');
  });
  it('shows the id, file, shards and creation time', () => {
    const r = rowOf(table([running]), running.id);
    expect(r).toContain('sw-2-k3x9qa</div>');
    expect(r).toContain('my-sweeps/placement-vs-load.yaml</div>');
    expect(r).toContain('<td class="num">4</td>');
    expect(r).toContain('28 Nov, 06:30');
  });
  it('fills the progress bar in from an event', () => {
    // 30 of 120 runs: 25 %; the event says 90 of 120: 75 %.
    const before = rowOf(table([running]), running.id);
    expect(before).toContain('30 of 120 runs');
    expect(before).toContain('width:25.0%');
    const list = applyDistributedSweepEvent([running], { ...running, runs: { done: 90, total: 120 } })!;
    const after = rowOf(table(list), running.id);
    expect(after).toContain('90 of 120 runs');
    expect(after).toContain('width:75.0%');
    expect(after).toContain('aria-valuenow="90"');
    // The last run's event: done, the bar full.
    const end = applyDistributedSweepEvent(list, { ...running, state: 'done', runs: { done: 120, total: 120 } })!;
    const full = rowOf(table(end), running.id);
    expect(full).toContain('>done</span>');
    expect(full).toContain('width:100.0%');
  });
  it("shows every shard failure's message, whole", () => {
    const message = 'shard 3: simulating run 97 (point 32, seed 3):\nscenario my-sweeps/base.yaml:14:9: spec.nodes: 0 is out of range 1..100000';
    const s = { ...running, failures: [{ shard: 3, at: '2026-11-28T06:35:00Z', message }, { shard: 1, at: null, message: '' }] };
    const html = table([s]);
    expect(rowOf(html, s.id)).toContain('2 · shards 1, 3');
    expect(html).toContain('Shard 3</b> failed at 28 Nov 2026, 06:35 UTC');
    expect(html).toContain('Kubernetes retries it');
    expect(html).toContain('scenario my-sweeps/base.yaml:14:9: spec.nodes: 0 is out of range 1..100000');
    expect(html).toContain('(the worker sent no message)');
  });
  it('greys Cancel out for a read-only token', () => {
    expect(rowOf(table([running], false), running.id)).toMatch(/disabled=""[^>]*data-testid="cancel-dsweep-sw-2-k3x9qa"/);
  });
  it('explains how to start one when there is none', () => {
    const html = table([]);
    expect(html).toContain('No sweeps on Kubernetes yet.');
    expect(html).toContain('gantry sweep my-sweep.yaml --on kubernetes');
    expect(html).toContain('Sweeps on Kubernetes');
  });
});

describe('the cancel dialog', () => {
  it('says what happens and shows the command that deletes the Job', () => {
    const html = renderToStaticMarkup(<CancelSweepDialog s={running} busy={false} onConfirm={() => {}} onClose={() => {}} />);
    expect(html).toContain('Cancel placement-vs-load?');
    expect(html).toContain('after 30 of 120 runs');
    expect(html).toContain("every worker&#x27;s token stops working");
    expect(html).toContain('The server holds no credentials for your cluster');
    expect(html).toMatch(/data-testid="cancel-dsweep-command">gantry sweep cancel sw-2-k3x9qa --server \S+ --namespace NAMESPACE</);
    expect(html).toContain('gantry-sweep-sw-2-k3x9qa');
    expect(html).toContain('Keep running');
  });
});

describe('the cancel text in the chosen language', () => {
  afterEach(() => setLocale('en'));
  it('says it in English, one shard or several', () => {
    expect(cancelDialogLines(running)).toEqual([
      "The server ends placement-vs-load now, after 30 of 120 runs: it records no more runs, every worker's token stops working and the pods of each of its 4 shards stop at their next request. A cancelled sweep has no report.",
      'The server holds no credentials for your cluster, so the Job and its pods stay there until you delete them. Run this where your kubeconfig is:',
    ]);
    expect(cancelDialogLines({ ...running, shards: 1 })[0]).toContain('the pods of its 1 shard stop');
  });
  it('says it in Chinese when zh-CN is chosen, the caption of a running sweep too', () => {
    setLocale('zh-CN');
    expect(cancelDialogLines(running)).toEqual([
      '服务器立即结束 placement-vs-load（已完成 30 / 120 次运行）：不再记录运行，每个 worker 的令牌失效，4 个分片各自的 Pod 在下一次请求时停止。已取消的扫描没有报告。',
      '服务器不持有你的集群凭据，因此 Job 及其 Pod 会一直留在集群中，直到你删除它们。请在有 kubeconfig 的地方运行：',
    ]);
    const detail = { ...running, runs: { done: 4, total: 12 }, partial: { result: {}, report: 'x' } };
    const html = renderToStaticMarkup(<DistributedSweepDetail s={detail} detail={detail} error={null} />);
    expect(html).toContain('<b>目前</b>，已完成 4 / 12 次运行：每个点在已记录种子上的均值 ± 95% 置信区间（n）；完成后给出图表。');
  });
});

describe('the sweep open below the list', () => {
  it("shows a running sweep's per-point figures so far, as the server's table", () => {
    const report = 'sweep placement-vs-load: 4 points × 3 seeds of ../base.yaml; runs 4 of 12\n\nwait.p95\n  placement  nodes  mean  ± 95% CI  n\n  binpack    6      1m00s ± 2m29s   3\n  binpack    8      3m00s —         1\n';
    const detail = { ...running, runs: { done: 4, total: 12 }, partial: { result: {}, report } };
    // The list has moved on (5 runs): the header says so, the figures are those fetched (4).
    const html = renderToStaticMarkup(<DistributedSweepDetail s={{ ...running, runs: { done: 5, total: 12 } }} detail={detail} error={null} />);
    expect(html).toContain('5 of 12 runs in 4 shards');
    expect(html).toContain('<b>So far</b>, after 4 of 12 runs');
    expect(html).toContain('binpack    8      3m00s —         1');
    expect(html).not.toContain('data-chart');
  });
  it('says when the figures cannot be loaded, and waits without them', () => {
    expect(renderToStaticMarkup(<DistributedSweepDetail s={running} error="The server cannot be reached. Is gantry serve running?" />)).toContain('Could not load the figures of placement-vs-load: The server cannot be reached.');
    expect(renderToStaticMarkup(<DistributedSweepDetail s={running} error={null} />)).toContain('class="skeleton"');
    // A server without figures so far.
    expect(renderToStaticMarkup(<DistributedSweepDetail s={running} detail={running} error={null} />)).toContain('the report comes when the sweep is done');
  });
});

describe('the report', () => {
  it('is drawn as a served sweep', () => {
    const s = { ...done, report: 'sweep pools: 4 points × 3 seeds\n', charts: [{ name: 'wait.p95.svg', svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' }] };
    const html = renderToStaticMarkup(<StudyReport s={asStudy(s)} />);
    expect(html).toContain('gantry sweep my-sweeps/placement-vs-load.yaml');
    expect(html).toContain('sweep pools: 4 points × 3 seeds');
    expect(html).toContain('data-chart="wait.p95.svg"');
  });
});

describe('a long list', () => {
  it('shows the newest 8 and every running one, the rest behind a button', () => {
    // 12 sweeps, sw-12 newest; sw-1 still running: 8 newest + sw-1 = 9 rows.
    const list = Array.from({ length: 12 }, (_, i) => ({ ...done, id: `sw-${12 - i}-x`, state: (i === 11 ? 'running' : 'done') as DistributedSweep['state'] }));
    const html = table(list);
    expect(html.match(/<tr data-sweep=/g)).toHaveLength(9);
    expect(html).toContain('data-sweep="sw-1-x"');
    expect(html).not.toContain('data-sweep="sw-2-x"');
    expect(html).toContain('Show all 12 sweeps');
  });
});
