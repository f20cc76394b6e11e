// Day-two operation for the browser test (issue #26): a failure explained where the user looks
// (§1), the cluster page saying why a gang waits and who holds the GPUs (§5), and stopping
// work with a confirmation (§3). The pipelines are applied through the REST API, as `gantry
// pipeline apply` does; what is checked is what the pages show. Waits are on DOM state.
//
// The e2e server runs the quickstart cluster (32 nodes of 8 A100-80G) at --speed 600.
import { callApi as call } from './api.mjs';

const apply = (url, token, yaml) => call(url, token, 'POST', '/pipelines?paused=false', yaml, 'application/yaml');

// Polls `probe` (an async function returning a value or null) until it returns a value.
async function until(probe, what, timeoutMs = 120000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250)); // a poll interval, not a synchronisation
  }
}

// §1: a task whose GPU type no node has fails at once; the grid cell and the run's detail say
// why, and the server's dry run warned before.
export async function checkFailureExplained(page, { url, token, id, shot }) {
  const name = `never-fits-${id}`;
  const yaml = `apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: ${name}}
spec:
  tasks:
  - name: train
    template: pytorchjob
    image: registry.local/train:1
    replicas: {master: 1, worker: 1}
    resources: {cpu: "4", memory: 16Gi, gpu: "1", gpuType: A100}
    simulate: {duration: 10m}
`;
  const dry = await call(url, token, 'POST', '/pipelines?dryRun=true', yaml, 'application/yaml');
  if (!(dry.warnings ?? []).some((w) => /A100/.test(w.message))) throw new Error(`the dry run did not warn about GPU type A100: ${JSON.stringify(dry)}`);
  await apply(url, token, yaml);
  const run = await call(url, token, 'POST', `/pipelines/${name}/trigger`, '');
  const cell = `.rgrid .cell button[data-run="${run.logicalTime}"][data-task="train"]`;
  await page.goto(`${url}/#/runs/${encodeURIComponent(name)}?run=${encodeURIComponent(run.logicalTime)}`);
  await page.waitForSelector(`${cell}[data-state=failed]`, { timeout: 60000 });
  const label = await page.getAttribute(cell, 'aria-label');
  if (!/can never be placed/.test(label ?? '')) throw new Error(`the failed cell does not say why: ${label}`);
  await page.click(cell);
  await page.waitForSelector('[data-testid=run-detail] :text("can never be placed")');
  await shot('runs-failure-explained');
}

// §5: two whole-cluster gangs (32 pods of 8 GPUs, 10 simulated hours: a minute at --speed 600)
// cannot both run: the queue says what the waiting one needs and the room there is; a running
// gang lights its GPUs on hover. Both runs are killed afterwards, so that the cluster is free
// for the steps after.
export async function checkWhyWaiting(page, { url, token, id, shot }) {
  const name = `whole-cluster-${id}`;
  await apply(url, token, `apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: ${name}}
spec:
  concurrency: {maxActiveRuns: 2}
  tasks:
  - name: train
    template: pytorchjob
    image: registry.local/train:1
    replicas: {master: 1, worker: 31}
    resources: {cpu: "8", memory: 64Gi, gpu: "8"}
    simulate: {duration: 10h}
`);
  const runs = [await call(url, token, 'POST', `/pipelines/${name}/trigger`, '')];
  // A second trigger at a later instant (one run per logical time): after the first's attempt.
  await until(async () => {
    const r = await call(url, token, 'GET', `/pipelines/${name}/runs/${encodeURIComponent(runs[0].logicalTime)}`);
    return r.tasks?.[0]?.attempts?.length > 0;
  }, 'the first run to ask for its gang');
  runs.push(await call(url, token, 'POST', `/pipelines/${name}/trigger`, ''));

  await page.click('[data-nav=cluster]');
  const row = `[data-testid=queue] tr:has(a:text("${name}"))`;
  await page.waitForSelector(`${row} [data-testid=queue-reason]:has-text("needs 32 pods of 8 GPUs")`, { timeout: 60000 });
  const reason = await page.textContent(`${row} [data-testid=queue-reason]`);
  if (!/room for \d+/.test(reason ?? '')) throw new Error(`the queue's reason gives no room: ${reason}`);
  // Who holds the GPUs: hovering a running gang lights its GPUs, and only while hovered.
  await page.waitForSelector('[data-testid=running] tbody tr');
  await page.hover('[data-testid=running] tbody tr >> nth=0');
  await page.waitForSelector('.gpu.lit');
  await shot('cluster-why-waiting', { full: true });
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => document.querySelectorAll('.gpu.lit').length === 0);

  // §3: each run killed from its page, after a dialog that lists what changes; a toast says so.
  for (const r of runs) {
    await page.goto(`${url}/#/runs/${encodeURIComponent(name)}?run=${encodeURIComponent(r.logicalTime)}`);
    await page.waitForSelector('[data-testid=run-detail] [data-testid=run-kill]:not([disabled])');
    await page.click('[data-testid=run-detail] [data-testid=run-kill]');
    await page.waitForSelector('[data-testid=action-dialog] [data-testid=changes] tr[data-task=train]');
    if (r === runs[0]) await shot('runs-kill-dialog');
    await page.click('[data-testid=confirm-action]');
    await page.waitForSelector('.toast[data-kind=ok]:has-text("killed")');
    await page.waitForSelector(`.rgrid .cell button[data-run="${r.logicalTime}"][data-task=train][data-state=killed]`);
    const after = await call(url, token, 'GET', `/pipelines/${name}/runs/${encodeURIComponent(r.logicalTime)}`);
    if (after.state !== 'killed') throw new Error(`the run is ${after.state} after Kill, not killed`);
    const reason = after.tasks[0].attempts.at(-1)?.reason ?? '';
    if (!/^killed by /.test(reason)) throw new Error(`the killed attempt's reason does not say by whom: "${reason}"`);
  }
}

// §2, §3: a failed task's log one click away; clear it with its downstream, mark it succeeded,
// each after a dialog listing the server's dry run; backfill a window after a dialog counting
// its runs; delete the pipeline purging its runs.
export async function checkTaskActions(page, { url, token, id, shot }) {
  const name = `ops-${id}`;
  await call(url, token, 'POST', '/pipelines', `apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: ${name}}
spec:
  schedule: {cron: "0 * * * *", start: "2026-01-01T00:00:00Z"}
  params:
    epochs: {type: int, default: 3, description: passes over the data}
    note: {type: string, default: nightly}
  tasks:
  - {name: extract, image: registry.local/etl:1, simulate: {duration: 1m}}
  - {name: train, image: registry.local/train:1, dependsOn: [extract], simulate: {duration: 1m, outcomes: [failed]}}
  - {name: report, image: registry.local/etl:1, dependsOn: [train], simulate: {duration: 1m}}
`, 'application/yaml');
  // Trigger with parameters: a typed form; a wrong value is said on its field and holds the
  // button back; the run shows the values it got.
  await page.goto(`${url}/#/runs/${encodeURIComponent(name)}`);
  await page.click('[data-testid=runs-trigger]');
  await page.waitForSelector('[data-testid=trigger-dialog] [data-testid=param-epochs]');
  await page.fill('[data-testid=param-epochs]', 'ten');
  await page.waitForSelector('[data-testid=trigger-dialog] :text("a whole number")');
  await page.waitForSelector('[data-testid=confirm-trigger][disabled]');
  await page.fill('[data-testid=param-epochs]', '5');
  await shot('runs-trigger-params');
  const triggered = page.waitForResponse((r) => r.url().endsWith(`/pipelines/${name}/trigger`) && r.request().method() === 'POST');
  await page.click('[data-testid=confirm-trigger]');
  const run = await (await triggered).json();
  if (run.params?.epochs !== 5 || run.params?.note !== 'nightly') throw new Error(`the run's params: ${JSON.stringify(run.params)}`);
  await page.waitForSelector('[data-testid=run-params]:has-text("epochs=5")');
  const lt = run.logicalTime;
  const cell = (task, state) => `.rgrid .cell button[data-run="${lt}"][data-task="${task}"]${state ? `[data-state=${state}]` : ''}`;
  await page.waitForSelector(cell('report', 'upstream_failed'), { timeout: 60000 });
  await page.click(cell('train', 'failed'));

  // The log of attempt 1, one click away.
  await page.click('[data-testid=task-actions][data-task=train] [data-testid=log-1]');
  await page.waitForSelector('[data-testid=attempt-log] [data-testid=log-text]');
  const story = await page.textContent('[data-testid=attempt-log] [data-testid=log-text]');
  if (!/fail/i.test(story ?? '')) throw new Error(`the attempt's log does not tell its failure: ${story}`);
  await shot('runs-attempt-log');
  await page.keyboard.press('Escape');

  // Clear with its downstream: the dialog lists both tasks before anything changes.
  await page.click('[data-testid=task-actions][data-task=train] [data-testid=task-clear]');
  await page.waitForSelector('[data-testid=action-dialog] [data-testid=changes] tr[data-task=report]');
  await page.waitForSelector('[data-testid=action-dialog] [data-testid=changes] tr[data-task=train]');
  await shot('runs-clear-dialog');
  await page.click('[data-testid=confirm-action]');
  await page.waitForSelector('.toast[data-kind=ok]:has-text("train cleared")');
  // It fails again (its outcomes say so): a second attempt.
  await page.waitForFunction(
    ([u, t, p, l]) => fetch(`${u}/api/v1/pipelines/${p}/runs/${encodeURIComponent(l)}`, { headers: { Authorization: `Bearer ${t}` } })
      .then((r) => r.json())
      .then((r) => r.state === 'failed' && r.tasks.find((x) => x.name === 'train').attempts.length === 2),
    [url, token, name, lt],
    { timeout: 60000, polling: 500 },
  );

  // Mark it succeeded: report runs, and the run succeeds.
  await page.click(cell('train'));
  await page.click('[data-testid=task-actions][data-task=train] [data-testid=task-mark-success]');
  await page.waitForSelector('[data-testid=action-dialog] [data-testid=changes] tr[data-task=train]');
  await page.click('[data-testid=confirm-action]');
  await page.waitForSelector('.toast[data-kind=ok]:has-text("train marked succeeded")');
  await page.waitForSelector(cell('report', 'succeeded'), { timeout: 60000 });

  // Runs by state: the failed filter shows none now that the run succeeded.
  await page.selectOption('[data-testid=runs-state-filter]', 'failed');
  await page.waitForSelector('[data-testid=runs-none-match]');
  await page.selectOption('[data-testid=runs-state-filter]', '');
  await page.waitForSelector(cell('report', 'succeeded'));

  // Backfill four hourly ticks: the dialog counts them first.
  await page.click('[data-testid=runs-backfill]');
  await page.fill('[data-testid=backfill-from]', '2026-01-01T00:00');
  await page.fill('[data-testid=backfill-to]', '2026-01-01T03:00');
  await page.waitForSelector('[data-testid=backfill-preview]:has-text("4 ticks")');
  await page.click('[data-testid=confirm-backfill]');
  await page.waitForSelector('.toast[data-kind=ok]:has-text("4 runs created")');

  // Delete, purging the runs, once the backfill's runs have ended (the server refuses while
  // runs are in flight, and the dialog says so): the name must be typed.
  await page.waitForFunction(
    ([u, t, p]) => fetch(`${u}/api/v1/pipelines/${p}/runs?limit=50`, { headers: { Authorization: `Bearer ${t}` } })
      .then((r) => r.json())
      .then((r) => r.runs.length === 5 && r.runs.every((x) => x.state !== 'queued' && x.state !== 'running')),
    [url, token, name],
    { timeout: 60000, polling: 500 },
  );
  await page.waitForFunction(() => !document.querySelector('.rgrid .head button[data-state=running], .rgrid .head button[data-state=queued]'));
  await page.click('[data-testid=runs-delete]');
  await page.click('[data-testid=delete-purge]');
  await page.waitForSelector('[data-testid=confirm-delete][disabled]');
  await page.fill('[data-testid=delete-typed]', name);
  await page.click('[data-testid=confirm-delete]');
  await page.waitForSelector('[data-testid=pipelines-table]');
  const gone = await fetch(`${url}/api/v1/pipelines/${name}`, { headers: { Authorization: `Bearer ${token}` } });
  if (gone.status !== 404) throw new Error(`the deleted pipeline answers HTTP ${gone.status}`);
}
