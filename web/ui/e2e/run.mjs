#!/usr/bin/env node
// The browser test of the web app (issue #10): Debian's Chromium driven by playwright-core
// against a running server, `gantry serve` on loopback or the mock of e2e/mock-server.mjs.
//
//   GANTRY_URL=http://127.0.0.1:8080 GANTRY_TOKEN=$(cat gantry.db.token) \
//     node e2e/run.mjs [screenshot-dir]            # default e2e/screenshots
//
// It signs in, drags three templates onto the editor's canvas, connects them (and checks that
// closing a cycle is refused), sets a cron, saves, triggers, waits in the runs grid until the
// run has succeeded, opens every page and saves a screenshot of each (the what-if page with
// jobs, a fragmentation experiment and inference services; its sweeps on Kubernetes filling in,
// done and cancelled, e2e/distributedSweeps.mjs), and fails on any console
// error or uncaught exception. Waits are on DOM state, never on sleeps. Timings of the editor
// (layout, drag frame rate) are logged when the server has a pipeline `load-test-500`
// (the mock has it with MOCK_BIG=1); they are not asserted.

import fs from 'node:fs';
import path from 'node:path';
import { launch, watchErrors } from './browser.mjs';
import { checkDistributedSweepsPage } from './distributedSweeps.mjs';
import { checkFailureExplained, checkTaskActions, checkWhyWaiting } from './dayTwo.mjs';
import { checkOutage, outageConfigured } from './outage.mjs';
import { checkLocale } from './locale.mjs';
import { checkRunsByTime } from './runsByTime.mjs';

const url = (process.env.GANTRY_URL ?? '').replace(/\/$/, '');
const token = process.env.GANTRY_TOKEN ?? '';
const viewerToken = process.env.GANTRY_VIEWER_TOKEN ?? ''; // optional: a `gantry token create --read-only`
const editorToken = process.env.GANTRY_EDITOR_TOKEN ?? ''; // optional: `gantry token create --role editor --name e2e-editor`
if (!url || !token) {
  console.error('set GANTRY_URL (e.g. http://127.0.0.1:8080) and GANTRY_TOKEN');
  process.exit(2);
}
const out = path.resolve(process.argv[2] ?? process.env.SCREENSHOT_DIR ?? 'e2e/screenshots');
const runTimeout = Number(process.env.E2E_RUN_TIMEOUT_MS ?? 10 * 60 * 1000);
const kImage = process.env.E2E_IMAGE === 'jpeg' ? 'jpeg' : 'png'; // jpeg: smaller files, for docs
fs.mkdirSync(out, { recursive: true });

const errors = [];
const steps = [];
let current = '';
function step(name) {
  current = name;
  steps.push(name);
  console.log(`- ${name}`);
}

const { context, close } = await launch({ width: 1440, height: 900 });
const page = await context.newPage();
watchErrors(page, errors);
page.setDefaultTimeout(20000);

const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// `full`: the whole scrolling page (the app scrolls inside .page, not the document, so the
// window is made as tall as the content for the shot).
async function shot(name, { full = false } = {}) {
  await page.waitForLoadState('networkidle').catch(() => {});
  // Charts draw on the next frames; wait for two of them, not for a fixed time.
  await frames();
  const file = path.join(out, `${name}.${kImage}`);
  const size = page.viewportSize();
  if (full) {
    const h = await page.evaluate(() => document.querySelector('.page')?.scrollHeight ?? 0);
    if (h > size.height) {
      await page.setViewportSize({ width: size.width, height: h });
      await frames();
    }
  }
  await page.screenshot({ path: file, ...(kImage === 'jpeg' ? { type: 'jpeg', quality: 72 } : {}) });
  if (full) await page.setViewportSize(size);
  console.log(`  screenshot ${file}`);
}

async function center(locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('element has no box');
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

async function connect(from, to) {
  const a = await center(page.locator(`.task-node[data-task="${from}"]`).locator('..').locator('.react-flow__handle.source'));
  const b = await center(page.locator(`.task-node[data-task="${to}"]`).locator('..').locator('.react-flow__handle.target'));
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 8 });
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

const name = `e2e-${Date.now().toString(36)}`;
try {
  step('sign in');
  await page.goto(url + '/');
  await page.fill('#token', token);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=pipelines-table]');

  step('new pipeline: drag three templates onto the canvas');
  await page.click('[data-testid=new-pipeline]');
  const canvas = page.locator('[data-testid=canvas]');
  await canvas.waitFor();
  await page.fill('[data-testid=pipeline-name]', name);
  const box = await canvas.boundingBox();
  const drops = [
    ['container', 0.2],
    ['pytorchjob', 0.5],
    ['container', 0.8],
  ];
  for (const [tpl, fx] of drops) {
    await page.dragAndDrop(`.palette-item[data-template="${tpl}"]`, '[data-testid=canvas]', {
      targetPosition: { x: Math.round(box.width * fx), y: Math.round(box.height * 0.45) },
    });
  }
  await page.waitForFunction(() => document.querySelectorAll('.task-node').length === 3);
  // New tasks are named after their template: task, train, task-2.
  for (const t of ['task', 'train', 'task-2']) await page.locator(`.task-node[data-task="${t}"]`).waitFor();

  step('connect them: task -> train -> task-2');
  await connect('task', 'train');
  await page.waitForFunction(() => document.querySelectorAll('.react-flow__edge').length === 1);
  await connect('train', 'task-2');
  await page.waitForFunction(() => document.querySelectorAll('.react-flow__edge').length === 2);

  step('a connection that would close a cycle is refused');
  await connect('task-2', 'task');
  await page.waitForSelector('[data-testid=canvas-notice]:has-text("cycle")');
  if ((await page.locator('.react-flow__edge').count()) !== 2) throw new Error('the cycle edge was added');

  step('set a cron; the next five ticks show');
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.85); // an empty spot of the canvas
  await page.waitForSelector('[data-testid=pipeline-panel]');
  await page.fill('[data-testid=cron-input]', '*/5 * * * *');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=next-ticks] li').length === 5);
  await page.waitForSelector('[data-testid=validation][data-valid=true]');
  await shot('editor-new-pipeline');

  step('YAML tab shows what will be saved');
  await page.click('[data-testid=tab-yaml]');
  const yaml = await page.inputValue('[data-testid=yaml-text]');
  for (const needle of [`name: ${name}`, 'cron: "*/5 * * * *"', 'template: pytorchjob', 'dependsOn: [task]', 'dependsOn: [train]'])
    if (!yaml.includes(needle)) throw new Error(`the YAML lacks ${needle}:\n${yaml}`);
  await shot('editor-yaml');
  await page.click('[data-testid=tab-graph]');

  step('save: a new scheduled pipeline asks first, and is saved paused');
  await page.click('[data-testid=save]');
  await page.waitForSelector('[data-testid=save-dialog]:has-text("is saved paused")');
  await shot('editor-save-dialog');
  await page.click('[data-testid=confirm-save]');
  await page.waitForSelector('.toast[data-kind=ok]:has-text("Saved")');
  {
    const r = await fetch(`${url}/api/v1/pipelines/${name}`, { headers: { Authorization: `Bearer ${token}` } });
    if ((await r.json()).paused !== true) throw new Error(`a pipeline saved without "Start its schedule now" is not paused`);
  }

  step('trigger, and wait in the runs grid for the run to succeed');
  const triggered = page.waitForResponse((r) => r.url().endsWith(`/pipelines/${name}/trigger`) && r.request().method() === 'POST');
  await page.click('[data-testid=trigger]');
  const run = await (await triggered).json();
  if (!run.logicalTime) throw new Error(`trigger answered ${JSON.stringify(run)}`);
  await page.goto(`${url}/#/runs/${encodeURIComponent(name)}?run=${encodeURIComponent(run.logicalTime)}`);
  await page.waitForSelector(`.rgrid .head button[data-run="${run.logicalTime}"]`);
  await page.waitForSelector(`.rgrid .head button[data-run="${run.logicalTime}"][data-state="succeeded"]`, { timeout: runTimeout });
  for (const t of ['task', 'train', 'task-2']) await page.waitForSelector(`.rgrid .cell button[data-run="${run.logicalTime}"][data-task="${t}"][data-state="succeeded"]`);
  await page.waitForSelector('[data-testid=run-detail][data-state=succeeded]');
  await page.click(`.rgrid .cell button[data-run="${run.logicalTime}"][data-task="train"]`);
  await page.waitForSelector('[data-testid=gantt] canvas');
  await shot('runs', { full: true });

  step('every page');
  await page.click('[data-nav=pipelines]');
  await page.waitForSelector(`[data-pipeline="${name}"]`);
  await shot('pipelines');

  await page.goto(`${url}/#/editor/${encodeURIComponent(name)}`);
  await page.waitForFunction(() => document.querySelectorAll('.task-node').length === 3);
  await page.click('.task-node[data-task="train"]');
  await page.waitForSelector('[data-testid=task-panel]');
  await page.waitForSelector('[data-testid=validation][data-valid=true]');
  await shot('editor');

  step('editor: Backspace in the GPU count keeps the GPU; Enter on a palette template adds it at a free spot, focused');
  {
    await page.click('[data-testid=gpu-whole]');
    const count = page.locator('[data-testid=gpu-count]');
    await count.fill('2');
    await count.press('End');
    await count.press('Backspace');
    if ((await count.inputValue()) !== '') throw new Error('the GPU count did not empty');
    // Still "Whole GPUs" (the count and the GPU type fields are there): the task kept its GPU.
    await page.waitForSelector('[data-testid=gpu-type]');
    await count.pressSequentially('4');
    await count.press('Tab');
    await page.waitForFunction(() => document.querySelector('.task-node[data-task="train"]')?.textContent?.includes('4×'));

    await page.focus('.palette-item[data-template="container"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('.task-node').length === 4);
    await page.waitForFunction(() => document.activeElement?.querySelector?.('.task-node')?.getAttribute('data-task') === 'task-3');
    const boxes = await page.$$eval('.task-node', (els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [p, q] = [boxes[i], boxes[j]];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) throw new Error('the template added from the keyboard overlaps a task');
      }
  }

  step('editor: every problem of the document at once, the browser\'s and the server\'s, on their lines');
  {
    await page.click('[data-testid=tab-yaml]');
    const before = await page.inputValue('[data-testid=yaml-text]');
    const broken = before.replace(/^(\s*)dependsOn: \[train\]$/m, (_, ind) => `${ind}dependsOn: [train, nowhere]\n${ind}retires: 3`);
    if (broken === before) throw new Error('no "dependsOn: [train]" line to break');
    await page.fill('[data-testid=yaml-text]', broken);
    // The unknown task is found by the browser, the unknown field by the server only.
    await page.waitForFunction(() => {
      const all = [...document.querySelectorAll('[data-testid=problems] .p')].map((p) => p.textContent);
      return all.some((t) => t.includes('nowhere')) && all.some((t) => t.includes('retires'));
    });
    const status = await page.textContent('[data-testid=yaml-status]');
    if (/parses/.test(status) || !/problems/.test(status)) throw new Error(`the YAML status with problems says: ${status}`);
    if ((await page.locator('.y-ln.y-bad-ln').count()) < 2) throw new Error('the problems are not marked on their lines');
    await shot('editor-all-problems');
    await page.fill('[data-testid=yaml-text]', before);
    await page.waitForSelector('[data-testid=problems]', { state: 'detached' });
    await page.click('[data-testid=tab-graph]');
  }

  step('unsaved changes in the editor: leaving through the navigation asks first');
  {
    const b2 = await canvas.boundingBox();
    await page.mouse.click(b2.x + b2.width * 0.5, b2.y + b2.height * 0.85); // an empty spot: the pipeline panel
    await page.fill('[data-testid=cron-input]', '*/10 * * * *');
    await page.waitForSelector('text=Unsaved changes');
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.click('[data-nav=cluster]');
    await page.waitForFunction(() => !!document.querySelector('[data-testid=cron-input]'));
    if (!/unsaved changes/i.test(asked)) throw new Error(`leaving the editor with unsaved changes did not ask (dialog: "${asked}")`);
    if (!(await page.evaluate(() => location.hash.startsWith('#/editor/')))) throw new Error('staying in the editor changed the address');
    if ((await page.inputValue('[data-testid=cron-input]')) !== '*/10 * * * *') throw new Error('the unsaved change was lost');
    page.once('dialog', (d) => void d.accept());
  }

  await page.click('[data-nav=cluster]');
  await page.waitForSelector('.node-tile');
  await shot('cluster', { full: true });

  await page.click('[data-nav=whatif]');
  await page.waitForSelector('.variant select');
  await page.click('[data-testid=run-both]');
  await page.waitForSelector('[data-testid=comparison] table.compare', { timeout: runTimeout });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=comparison] canvas').length >= 3, null, { timeout: runTimeout });
  // Five seeds a side (42..46): every figure as mean ± its 95 % interval once all ten are done.
  await page.waitForFunction(() => [...document.querySelectorAll('.variant .badge')].filter((b) => b.textContent.includes('done')).length === 2 && !document.querySelector('[data-testid^=progress-]'), null, { timeout: runTimeout });
  await page.waitForFunction(() => /over 5 and 5 seeds/.test(document.querySelector('[data-testid=seeds-note]')?.textContent ?? ''), null, { timeout: runTimeout });
  const jct = await page.locator('[data-testid=comparison] tr[data-row="JCT mean"] td').allTextContents();
  if (!jct[1].includes('±') || !jct[2].includes('±')) throw new Error(`the JCT mean is not shown with its interval: ${jct.join(' | ')}`);
  await shot('whatif', { full: true });

  step('what-if of the fragmentation experiment: BestFit against FGD');
  for (const [k, policy] of [['A', 'BestFit'], ['B', 'FGD']]) {
    await page.selectOption(`[data-testid=scenario-${k}]`, 'openb-fragmentation');
    await page.selectOption(`[data-testid=policy-${k}]`, policy);
    await page.fill(`[data-testid=seeds-${k}]`, '1');
  }
  await page.click('[data-testid=run-both]');
  await page.waitForFunction(() => [...document.querySelectorAll('.variant .badge')].filter((b) => b.textContent.includes('done')).length === 2, null, { timeout: runTimeout });
  await page.waitForSelector('[data-testid="Unallocated GPUs as the workload arrives"] canvas');
  await shot('whatif-fragmentation', { full: true });

  step('what-if of inference services: HPA against KPA on the Azure code trace');
  // GET /scenarios lists the serving scenarios (scenarios/serving/*.yaml), and only scenarios
  // and experiments: not an InferenceService file such as serving/chat-service.yaml.
  const listed = await page.evaluate(async (t) => (await (await fetch('/api/v1/scenarios', { headers: { Authorization: `Bearer ${t}` } })).json()).scenarios, token);
  for (const n of ['hpa-vs-kpa-hpa', 'hpa-vs-kpa-kpa', 'scale-to-zero-cache', 'scale-to-zero-nocache', 'canary-10'])
    if (!listed.some((s) => s.name === n && s.kind === 'Scenario')) throw new Error(`GET /scenarios lacks the serving scenario ${n}`);
  const odd = listed.filter((s) => !['Scenario', 'Experiment'].includes(s.kind) || s.file.endsWith('chat-service.yaml'));
  if (odd.length) throw new Error(`GET /scenarios lists what is not a scenario: ${odd.map((s) => s.file).join(', ')}`);
  for (const [k, scenario] of [['A', 'hpa-vs-kpa-hpa'], ['B', 'hpa-vs-kpa-kpa']]) {
    await page.selectOption(`[data-testid=scenario-${k}]`, scenario);
    await page.selectOption(`[data-testid=fabric-${k}]`, ''); // as in the file
    await page.fill(`[data-testid=seed-${k}]`, ''); // the file's seed
  }
  await page.click('[data-testid=run-both]');
  await page.waitForSelector('[data-testid=services] tbody[data-service=code] tr[data-row=p99]', { timeout: runTimeout });
  for (const c of ['replicas', 'p99', 'qps']) await page.waitForSelector(`[data-testid="${c}-code"] canvas`, { timeout: runTimeout });
  // A scenario of services alone: no job rows, no job CDFs.
  if (await page.locator('[data-testid="Job completion time (CDF)"], [data-testid=comparison] table.compare:has-text("JCT")').count()) throw new Error('job charts or rows shown for a scenario of services alone');
  const seeds = await page.locator('[data-testid=services] tbody[data-service=code] tr[data-row=requests] td').allTextContents();
  if (seeds[1] !== seeds[2] || !/^\d{1,3}(,\d{3})+$/.test(seeds[1])) throw new Error(`requests of the same trace differ or are empty: ${seeds.join(' | ')}`);
  await shot('whatif-services', { full: true });

  step('sweeps on Kubernetes: runs fill in live, a shard failure, done with its report, cancel');
  await checkDistributedSweepsPage(page, { url, token, shot: () => shot('whatif-kubernetes', { full: true }) });

  step('day two: a failure explained in the grid and the run (#26 §1)');
  await checkFailureExplained(page, { url, token, id: name.replace(/^e2e-/, ''), shot });
  step('day two: the cluster says why a gang waits and who holds the GPUs (#26 §5)');
  await checkWhyWaiting(page, { url, token, id: name.replace(/^e2e-/, ''), shot });
  step('day two: a log, clear, mark success, backfill and delete, each confirmed (#26 §2, §3)');
  await checkTaskActions(page, { url, token, id: name.replace(/^e2e-/, ''), shot });
  step('runs by time range: a window sent to the server, kept in the address, paged inside; bad input refused; reset');
  await checkRunsByTime(page, { url, token, id: name.replace(/^e2e-/, ''), shot });

  // Editor timings on a large pipeline, when the server has one.
  // (Looked up in the list: a 404 would be a console error.)
  const big = await page.evaluate(async (t) => {
    const r = await fetch('/api/v1/pipelines', { headers: { Authorization: `Bearer ${t}` } });
    return (await r.json()).pipelines.some((p) => p.name === 'load-test-500');
  }, token);
  if (big) {
    step('editor timings on load-test-500 (logged, not asserted)');
    await page.goto(`${url}/#/editor/load-test-500`);
    await page.waitForSelector('.task-node');
    await page.click('[data-testid=auto-layout]');
    const layout = await page.evaluate(() => globalThis.__gantryLayout);
    const node = page.locator('.task-node').first();
    const a = await center(node);
    await page.evaluate(() => {
      globalThis.__frames = [];
      const tick = (t) => {
        globalThis.__frames.push(t);
        if (!globalThis.__stop) requestAnimationFrame(tick);
      };
      globalThis.__stop = false;
      requestAnimationFrame(tick);
    });
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    for (let i = 1; i <= 90; i++) await page.mouse.move(a.x + i * 3, a.y + Math.sin(i / 8) * 40);
    await page.mouse.up();
    const frames = await page.evaluate(() => {
      globalThis.__stop = true;
      const f = globalThis.__frames;
      const gaps = f.slice(1).map((t, i) => t - f[i]);
      return { count: f.length, seconds: (f[f.length - 1] - f[0]) / 1000, longest: Math.max(...gaps) };
    });
    console.log(`  layout of ${layout?.tasks} tasks: ${layout?.ms?.toFixed(0)} ms`);
    console.log(`  drag: ${(frames.count / frames.seconds).toFixed(0)} frames/s over ${frames.seconds.toFixed(1)} s, longest frame ${frames.longest.toFixed(0)} ms (headless, software rendering)`);
    await shot('editor-500-tasks');
  }

  step('find pipelines: search by name, filter by state, kept in the address across a reload');
  await page.click('[data-nav=pipelines]');
  await page.waitForSelector(`tr[data-pipeline="${name}"]`);
  await page.fill('[data-testid=pipeline-search]', name.toUpperCase().slice(2)); // a substring, another case
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=pipelines-table] tbody tr[data-pipeline]').length === 1);
  await page.waitForSelector(`tr[data-pipeline="${name}"]`);
  await page.selectOption('[data-testid=pipeline-state]', 'paused'); // saved paused
  await page.waitForSelector(`tr[data-pipeline="${name}"]`);
  if (!(await page.evaluate(() => location.hash)).includes('state=paused')) throw new Error('the filter is not in the address');
  await page.reload();
  await page.waitForSelector(`tr[data-pipeline="${name}"]`);
  if ((await page.inputValue('[data-testid=pipeline-search]')) !== name.toUpperCase().slice(2)) throw new Error('the search did not survive a reload');
  await page.selectOption('[data-testid=pipeline-state]', 'active');
  await page.waitForSelector('[data-testid=pipelines-none-match]');
  await shot('pipelines-filtered');
  await page.click('[data-testid=pipelines-none-match] button');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=pipelines-table] tbody tr[data-pipeline]').length > 1);
  // The "Paused" figure shows what it counts: the test's pipeline (saved paused) among them.
  await page.click('[data-kpi=Paused]');
  await page.waitForFunction(() => location.hash.includes('state=paused'));
  await page.waitForSelector(`tr[data-pipeline="${name}"]`);
  await page.click('[data-kpi=Paused]');
  await page.waitForFunction(() => !location.hash.includes('state='));

  if (outageConfigured()) {
    step('the server stops: every page says its data is stale and since when; it starts again: the pages recover');
    await checkOutage(page, { url, errors, pipeline: name, shot: () => shot('stale') });
  }

  if (editorToken) {
    step('access: the tokens and the audit log; a token revoked there is refused at once');
    await page.click('[data-nav=access]');
    await page.waitForSelector('[data-testid=tokens-table] tr[data-token="e2e-editor"]');
    // The test's own trigger is in the audit log, by the admin's token.
    await page.waitForSelector(`[data-testid=audit-table] code:text-is("POST /pipelines/${name}/trigger")`);
    const before = await fetch(`${url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${editorToken}` } });
    if (before.status !== 200 || (await before.json()).role !== 'editor') throw new Error(`the editor token before its revocation: HTTP ${before.status}`);
    await shot('access', { full: true });
    await page.click('[data-testid="revoke-e2e-editor"]');
    await page.waitForSelector('[data-testid=revoke-dialog]:has-text("stops working at its next request")');
    await page.click('[data-testid=confirm-revoke]');
    await page.waitForSelector('[data-testid=tokens-table] tr[data-token="e2e-editor"]', { state: 'detached' });
    await page.waitForSelector('[data-testid=audit-table] code:text-is("DELETE /tokens/e2e-editor")');
    // From Node, not the page: a 401 in the page would be a console error.
    const after = await fetch(`${url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${editorToken}` } });
    if (after.status !== 401) throw new Error(`a revoked token answered HTTP ${after.status}, not 401`);
  }

  step('中文: the navigation\'s switch turns Pipelines, Runs and Cluster to Chinese, and back (#26 §9)');
  await checkLocale(page, { shot });

  step('sign out: the login screen');
  await page.click('.nav .foot button');
  await page.waitForSelector('#token');
  await shot('login');

  if (viewerToken) {
    step('a read-only token: the pages read, the buttons that change things are greyed out');
    await page.fill('#token', viewerToken);
    await page.click('button[type=submit]');
    if (editorToken) {
      // Still on the Access page, which a viewer's token may not see: it says so.
      await page.waitForSelector('.banner:has-text("Only an admin token may see the tokens and the audit log; this token is viewer")');
      await page.click('[data-nav=whatif]');
    }
    await page.waitForSelector('[data-testid=run-both][disabled]');
    await page.click('[data-nav=pipelines]');
    await page.waitForSelector(`[data-testid="trigger-${name}"][disabled]`);
    await page.waitForSelector('[data-testid=new-pipeline][disabled]');
    if (await page.locator('[data-nav=access]').count()) throw new Error('the Access page is offered to a viewer');
    // The editor: the pipeline shown, nothing to start that could not be saved.
    await page.goto(`${url}/#/editor/${encodeURIComponent(name)}`);
    await page.waitForSelector('[data-testid=editor-read-only]');
    await page.waitForSelector('[data-testid=save][disabled]');
    await page.waitForSelector('.palette-item[aria-disabled=true]');
    await page.goto(`${url}/#/runs/${encodeURIComponent(name)}`);
    await page.waitForSelector('[data-testid=runs-trigger][disabled]');
    await page.waitForSelector('.rgrid .head button[data-state=succeeded]');
    await page.click('.nav .foot button');
    await page.waitForSelector('#token');
  }
} catch (e) {
  errors.push(`step "${current}": ${e.message.split('\n').slice(0, 3).join(' / ')}`);
  await page.screenshot({ path: path.join(out, 'FAILED.png') }).catch(() => {});
} finally {
  await close();
}

if (errors.length) {
  console.error(`\nFAILED (${errors.length}):\n` + errors.map((e) => `  ${e}`).join('\n'));
  process.exit(1);
}
console.log(`\nOK: ${steps.length} steps; screenshots in ${out}`);
