// Day-two operation for the browser test (issue #26): a failure explained where the user looks
// (§1), the cluster page saying why a gang waits and who holds the GPUs (§5), and stopping
// work with a confirmation (§3). The pipelines are applied through the REST API, as `gantry
// pipeline apply` does; what is checked is what the pages show. Waits are on DOM state.
//
// The e2e server runs the quickstart cluster (32 nodes of 8 A100-80G) at --speed 600.

async function call(url, token, method, route, body, type = 'application/json') {
  const r = await fetch(`${url}/api/v1${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': type, Accept: 'application/json' },
    body,
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${route}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

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
  const name = `e2e-never-fits-${id}`;
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
  const name = `e2e-whole-cluster-${id}`;
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
