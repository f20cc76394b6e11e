// Distributed sweeps for the browser test and the screenshots: a sweep submitted through the
// REST API as `gantry sweep --on kubernetes` submits it, and runs posted with its workers' token
// as `gantry sweep-worker` posts them (web/API.md, "Distributed sweeps"). The figures posted
// are made up but plausible (what is checked is what the page shows of what the server keeps;
// the workers' own simulations are tests/tools/sweep_worker_command_test.cpp's business).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callApi } from './api.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const quickstart = () => fs.readFileSync(path.resolve(here, '../../../scenarios/quickstart.yaml'), 'utf8');

// 2 placements × 2 rack sizes = 4 points, `seeds` seeds each: 4 × seeds runs, 2 metrics each.
export function gridDocuments(name, seeds = 3) {
  return {
    root: '/home/ana/what-if',
    sweep: `sweeps/${name}.yaml`,
    documents: {
      [`sweeps/${name}.yaml`]: `apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: ${name}}
spec:
  base: ../quickstart.yaml
  seeds: ${seeds}
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 8]}
  metrics: [wait.p95, jobs.finished]
`,
      'quickstart.yaml': quickstart(),
    },
  };
}

const call = (url, token, method, route, body) =>
  callApi(url, token, method, route, body === undefined ? undefined : JSON.stringify(body));

// Submits a sweep: {id, shards, runs, token}. `documents` defaults to gridDocuments(name, seeds).
export async function submitSweep(url, adminToken, name, { seeds = 3, shards = 2, documents } = {}) {
  return call(url, adminToken, 'POST', '/distributed-sweeps', { ...(documents ?? gridDocuments(name, seeds)), shards });
}

// The shipped scenarios/sweeps/placement-vs-load.yaml (27 points × 5 seeds) with its base, as
// `gantry sweep --on kubernetes` posts them from a user's checkout.
export function shippedSweepDocuments() {
  const read = (f) => fs.readFileSync(path.resolve(here, '../../../scenarios', f), 'utf8');
  return {
    root: '/home/ana/gantry/scenarios',
    sweep: 'sweeps/placement-vs-load.yaml',
    documents: { 'sweeps/placement-vs-load.yaml': read('sweeps/placement-vs-load.yaml'), 'quickstart.yaml': read('quickstart.yaml') },
  };
}

// The shard ranges as the server splits them (contiguous, sizes differing by one at most).
export function shardRange(runs, shards, k) {
  const base = Math.floor(runs / shards);
  const extra = runs % shards;
  const begin = k * base + Math.min(k, extra);
  return [begin, begin + base + (k < extra ? 1 : 0)];
}

// Posts runs [begin, end) of shard k with the workers' token. Run = point × seeds + seed index;
// the figures of gridDocuments' points (binpack 6, binpack 8, spread 6, spread 8 nodes a rack):
// a p95 wait that is shorter with more nodes and longer with spread, and the jobs finished.
export async function postRuns(url, sweep, k, begin, end, seeds = 3) {
  const runs = [];
  for (let run = begin; run < end; run++) {
    const point = Math.floor(run / seeds);
    const seedIndex = run % seeds;
    runs.push({ run, seed: 42 + seedIndex, fingerprint: 900000 + run, metrics: [[840, 510, 1320, 900][point % 4] + 45 * seedIndex, 600 - (point % 2 ? 0 : seedIndex)] });
  }
  return call(url, sweep.token, 'POST', `/distributed-sweeps/${sweep.id}/shards/${k}/runs`, { runs });
}

export async function reportFailure(url, sweep, k, message) {
  return call(url, sweep.token, 'POST', `/distributed-sweeps/${sweep.id}/shards/${k}/failure`, { message });
}

// The browser test's step on the what-if page (e2e/run.mjs): a sweep's runs and its per-point
// figures fill in live as its shards post them (no reload: the `distributed-sweep` events), a
// shard's failure shows its message, the last run makes it done with its report; a second one is cancelled from the page
// (the dialog shows `gantry sweep cancel ID`, a toast follows). `shot(name)` photographs the
// page with a running and a done sweep. Every wait is on the page's DOM.
export async function checkDistributedSweepsPage(page, { url, token, shot }) {
  const tag = Date.now().toString(36);
  const done = await submitSweep(url, token, `grid-${tag}`);
  const running = await submitSweep(url, token, `pools-${tag}`, { seeds: 5, shards: 4 });
  if (done.runs !== 12 || done.shards !== 2) throw new Error(`sweep of 12 runs in 2 shards expected, got ${JSON.stringify(done)}`);
  await page.goto(`${url}/#/whatif`);
  const row = (s) => `[data-testid=distributed-sweeps] tr[data-sweep="${s.id}"]`;
  const runsOf = async (s, text) => page.waitForFunction(([sel, t]) => document.querySelector(`${sel} [data-testid=dsweep-runs]`)?.textContent === t, [row(s), text]);
  await page.waitForSelector(`${row(done)}[data-state=running]`);
  await runsOf(done, '0 of 12 runs');
  // The newest is open below the list; open the first one's figures instead.
  await page.click(`[data-testid="open-dsweep-${done.id}"]`);
  const detail = `[data-testid=distributed-sweep-result][data-sweep="${done.id}"]`;
  await page.waitForSelector(`${detail}[data-state=running] [data-testid=study-report]`);

  // Shard 0 posts runs 0..5: the page shows 6 of 12 without being reloaded.
  const [b0, e0] = shardRange(12, 2, 0);
  await postRuns(url, done, 0, b0, e0);
  await runsOf(done, '6 of 12 runs');
  await page.waitForFunction((sel) => parseFloat(document.querySelector(`${sel} [role=progressbar] > div`)?.style.width) === 50, row(done));
  // Its figures so far fill in: points 0 and 1 (runs 0 to 5) have their 3 seeds, 2 and 3 none.
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-testid=dsweep-partial]`)?.textContent.includes('after 6 of 12 runs'), detail);
  const partial = await page.textContent(`${detail} [data-testid=study-report]`);
  if (!partial.includes('runs 6 of 12') || !/binpack\s+6\s+\S+\s+± \S+\s+3\n/.test(partial) || !/spread\s+8\s+—\s+—\s+0\n/.test(partial)) throw new Error(`the figures so far: ${partial}`);

  // Shard 1 fails once (the Job retries it): its message is shown whole.
  const failure = 'shard 1: GET /distributed-sweeps/…/shards/1: connection refused (is --server reachable from the pods?)';
  await reportFailure(url, done, 1, failure);
  await page.waitForFunction(([sel, m]) => document.querySelector(sel)?.nextElementSibling?.textContent.includes(m), [row(done), failure]);

  // The retried shard 1 posts the rest: done, with its report as `gantry sweep` prints it.
  const [b1, e1] = shardRange(12, 2, 1);
  await postRuns(url, done, 1, b1, e1);
  await page.waitForSelector(`${row(done)}[data-state=done]`);
  await page.waitForSelector(`${detail}[data-state=done] .study-chart img`);
  const report = await page.textContent(`${detail} [data-testid=study-report]`);
  if (!report.includes(`sweep grid-${tag}`) || !report.includes('runs 12 of 12')) throw new Error(`the report: ${report.slice(0, 300)}`);

  // The other sweep part-way: 2 of its 4 shards in (5 + 5 of 20 runs), one failure.
  for (const k of [0, 2]) {
    const [b, e] = shardRange(20, 4, k);
    await postRuns(url, running, k, b, e, 5);
  }
  await reportFailure(url, running, 3, 'shard 3: simulating run 17 (point 3, seed 44): the pod was OOMKilled (exit code 137); last output:\n  placing job 2,311 of 4,800');
  await runsOf(running, '10 of 20 runs');
  await page.waitForSelector(`${row(running)}.has-failures`);
  if (shot) await shot();

  // Cancel from the page: the dialog says what happens and shows the command; a toast after.
  await page.click(`[data-testid="cancel-dsweep-${running.id}"]`);
  await page.waitForSelector('[data-testid=cancel-dsweep-dialog]');
  const command = await page.textContent('[data-testid=cancel-dsweep-command]');
  if (!command.startsWith(`gantry sweep cancel ${running.id} --server ${url}`)) throw new Error(`the cancel dialog's command: ${command}`);
  await page.click('[data-testid=confirm-cancel-dsweep]');
  await page.waitForSelector(`${row(running)}[data-state=cancelled]`);
  await page.waitForSelector(`.toast[data-kind=ok]:has-text("Cancelled pools-${tag}")`);
  // The server's side: cancelled, its workers' token ended (410).
  const r = await fetch(`${url}/api/v1/distributed-sweeps/${running.id}/shards/1`, { headers: { Authorization: `Bearer ${running.token}` } });
  if (r.status !== 410) throw new Error(`a cancelled sweep's worker token answered ${r.status}, not 410`);
}
