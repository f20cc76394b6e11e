#!/usr/bin/env node
// Screenshots of every page of a running `gantry serve` that has the demo pipelines of
// e2e/pipelines/ (tools/web-e2e.sh --docs writes the README's into docs/screenshots):
//
//   GANTRY_URL=http://127.0.0.1:8080 GANTRY_TOKEN=... node e2e/screenshots.mjs [out-dir] [page...]
//
// Each page is opened in a fresh tab, signed in with the token, and photographed once its data
// is there (waits on DOM state: runs in the grid, allocated GPUs, finished simulations), never
// after a fixed sleep. Fails on any console error, as e2e/run.mjs does.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { launch, watchErrors } from './browser.mjs';
import { gridDocuments, reportFailure, shippedSweepDocuments, submitSweep } from './distributedSweeps.mjs';

const url = (process.env.GANTRY_URL ?? '').replace(/\/$/, '');
const token = process.env.GANTRY_TOKEN ?? '';
const viewerToken = process.env.GANTRY_VIEWER_TOKEN ?? ''; // optional, for the Access page's audit log
const editorToken = process.env.GANTRY_EDITOR_TOKEN ?? '';
if (!url || !token) {
  console.error('set GANTRY_URL and GANTRY_TOKEN');
  process.exit(2);
}
const out = path.resolve(process.argv[2] ?? 'e2e/screenshots');
const only = process.argv.slice(3);
const timeout = Number(process.env.E2E_RUN_TIMEOUT_MS ?? 5 * 60 * 1000);
fs.mkdirSync(out, { recursive: true });

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

const pages = [
  // First: the quickstart cluster's own workload (600 jobs over about a simulated day) keeps its
  // GPUs busy for the first few minutes of a server at --speed 600.
  {
    name: 'cluster',
    hash: '#/cluster',
    full: true,
    ready: async (page) => {
      await page.waitForSelector('.node-tile');
      await page.waitForFunction(() => document.querySelectorAll('.gpu[data-milli="1000"]').length >= 160, null, { timeout });
    },
  },
  {
    name: 'pipelines',
    hash: '#/pipelines',
    // Every demo pipeline has run at least once.
    ready: async (page) => {
      await page.waitForSelector('[data-pipeline="feature-etl"]');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-pipeline]')].filter((r) => r.textContent.includes('never run')).length === 0, null, { timeout });
    },
  },
  {
    name: 'editor',
    hash: '#/editor/llm-finetune-nightly',
    ready: async (page) => {
      await page.waitForSelector('.task-node[data-task="finetune"]');
      await page.click('.task-node[data-task="finetune"]');
      await page.waitForSelector('[data-testid=task-panel]');
      await page.waitForSelector('[data-testid=validation][data-valid=true]');
    },
  },
  {
    name: 'editor-yaml',
    hash: '#/editor/feature-etl',
    ready: async (page) => {
      await page.waitForSelector('.task-node');
      await page.click('[data-testid=tab-yaml]');
      await page.waitForSelector('[data-testid=yaml-text]');
    },
  },
  {
    name: 'runs',
    hash: '#/runs/feature-etl',
    full: true,
    // A dozen hourly runs, and the detail of the newest finished one with its validate task.
    ready: async (page) => {
      await page.waitForFunction(() => document.querySelectorAll('.rgrid .head button[data-state=succeeded], .rgrid .head button[data-state=failed]').length >= 12, null, { timeout });
      const last = page.locator('.rgrid .head button[data-state=succeeded]').last();
      await last.click();
      const lt = await last.getAttribute('data-run');
      await page.click(`.rgrid .cell button[data-run="${lt}"][data-task="validate"]`);
      await page.waitForSelector('[data-testid=run-detail][data-state=succeeded] [data-testid=gantt] canvas');
    },
  },
  {
    name: 'whatif',
    hash: '#/whatif',
    full: true,
    ready: async (page) => {
      await page.waitForSelector('.variant select');
      for (const k of ['A', 'B']) await page.fill(`[data-testid=seeds-${k}]`, '5'); // seeds 42..46 a side
      await page.click('[data-testid=run-both]');
      await page.waitForSelector('[data-testid=comparison] table.compare', { timeout });
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=comparison] canvas').length >= 3, null, { timeout });
      await page.waitForFunction(() => /over 5 and 5 seeds/.test(document.querySelector('[data-testid=seeds-note]')?.textContent ?? ''), null, { timeout });
    },
  },
  {
    name: 'whatif-fragmentation',
    hash: '#/whatif',
    full: true,
    // The FGD experiment on Alibaba's openb trace, one seed: BestFit against FGD.
    ready: async (page) => {
      await page.waitForSelector('[data-testid=scenario-A] option[value=openb-fragmentation]', { state: 'attached' });
      for (const [k, policy] of [['A', 'BestFit'], ['B', 'FGD']]) {
        await page.selectOption(`[data-testid=scenario-${k}]`, 'openb-fragmentation');
        await page.selectOption(`[data-testid=policy-${k}]`, policy);
        await page.fill(`[data-testid=seeds-${k}]`, '1');
      }
      await page.click('[data-testid=run-both]');
      await page.waitForFunction(() => [...document.querySelectorAll('.variant .badge')].filter((b) => b.textContent.includes('done')).length === 2, null, { timeout });
      await page.waitForSelector('[data-testid=comparison] canvas');
    },
  },
  {
    name: 'whatif-services',
    hash: '#/whatif',
    full: true,
    // Inference services: HPA against KPA on the Azure code trace, each as in its file.
    ready: async (page) => {
      await page.waitForSelector('[data-testid=scenario-A] option[value=hpa-vs-kpa-hpa]', { state: 'attached' });
      for (const [k, scenario] of [['A', 'hpa-vs-kpa-hpa'], ['B', 'hpa-vs-kpa-kpa']]) {
        await page.selectOption(`[data-testid=scenario-${k}]`, scenario);
        await page.selectOption(`[data-testid=fabric-${k}]`, '');
        await page.fill(`[data-testid=seed-${k}]`, ''); // the file's seed
        await page.fill(`[data-testid=seeds-${k}]`, '1');
      }
      await page.click('[data-testid=run-both]');
      await page.waitForSelector('[data-testid=services] tbody[data-service=code] tr[data-row=p99]', { timeout });
      for (const c of ['replicas', 'p99', 'qps']) await page.waitForSelector(`[data-testid="${c}-code"] canvas`, { timeout });
    },
  },
  {
    name: 'whatif-kubernetes',
    hash: '#/whatif',
    section: '[data-testid=distributed-sweeps]',
    // Sweeps on Kubernetes: the shipped placement-vs-load done by 8 shards, and a larger one
    // part-way (4 of its 8 shards in, one failure reported), open with its figures so far. The shards are real `gantry
    // sweep-worker` processes (GANTRY_BIN, which tools/web-e2e.sh sets), run here one after
    // another instead of as pods: their figures are the simulations'.
    ready: async (page) => {
      const bin = process.env.GANTRY_BIN;
      if (!bin) throw new Error('set GANTRY_BIN to build/gantry: the shards are run by gantry sweep-worker');
      const worker = (s, k) => promisify(execFile)(bin, ['sweep-worker', '--sweep', s.id, '--server', url, '--shard', String(k)], { env: { ...process.env, GANTRY_TOKEN: s.token } });
      const done = await submitSweep(url, token, 'placement-vs-load', { documents: shippedSweepDocuments(), shards: 8 });
      const documents = gridDocuments('rack-size-by-placement', 10);
      const key = Object.keys(documents.documents).find((k) => k.startsWith('sweeps/'));
      documents.documents[key] = documents.documents[key].replace('values: [6, 8]', 'values: [6, 8, 10, 12]').replace('values: [binpack, spread]', 'values: [binpack, topology]');
      const running = await submitSweep(url, token, 'rack-size-by-placement', { documents, shards: 8 });
      for (let k = 0; k < done.shards; k++) await worker(done, k);
      for (const k of [0, 1, 2, 4]) await worker(running, k);
      await reportFailure(url, running, 5, 'shard 5 failed: posting runs 50 to 54 to http://gantry.what-if.svc:8080: the server answered 503: the database is locked');
      await page.waitForSelector(`[data-testid=distributed-sweeps] tr[data-sweep="${done.id}"][data-state=done]`, { timeout });
      await page.waitForSelector(`[data-testid=distributed-sweeps] tr[data-sweep="${running.id}"].has-failures`, { timeout });
      // The newest, running, is open below the list with its figures so far.
      await page.waitForFunction((id) => document.querySelector(`[data-testid=distributed-sweep-result][data-sweep="${id}"] [data-testid=dsweep-partial]`)?.textContent.includes('after 40 of 80 runs'), running.id, { timeout });
    },
  },
  // Last: the audit log then holds the sweeps' submissions above, and a few actions made here
  // by each role (an editor's trigger, a viewer's refused one, an admin's pause and resume).
  {
    name: 'access',
    hash: '#/access',
    full: true,
    ready: async (page) => {
      const post = (t, p) => fetch(`${url}/api/v1${p}`, { method: 'POST', headers: { Authorization: `Bearer ${t}` } });
      if (editorToken) await post(editorToken, '/pipelines/feature-etl/trigger');
      if (viewerToken) await post(viewerToken, '/pipelines/feature-etl/trigger'); // 403, recorded
      await post(token, '/pipelines/recsys-retrain/pause');
      await post(token, '/pipelines/recsys-retrain/resume');
      await page.reload();
      await page.waitForSelector('[data-testid=tokens-table] tr[data-token]');
      await page.waitForSelector('[data-testid=audit-table] code:text-is("POST /pipelines/recsys-retrain/resume")', { timeout });
    },
  },
];

const { context, close } = await launch({ width: 1440, height: 900 });
const errors = [];
try {
  for (const p of pages) {
    if (only.length && !only.includes(p.name)) continue;
    const page = await context.newPage();
    watchErrors(page, errors);
    page.setDefaultTimeout(30000);
    await page.goto(url + '/');
    await page.evaluate((t) => localStorage.setItem('gantry.token', t), token);
    await page.goto(url + '/' + p.hash);
    await page.reload(); // a fresh start with the token in storage
    try {
      await p.ready(page);
      // The server's clock in the navigation (shown when --speed is not 1) is part of the shot.
      if (await page.evaluate(async (t) => (await (await fetch('/api/v1/clock', { headers: { Authorization: `Bearer ${t}` } })).json()).speed !== 1, token))
        await page.waitForSelector('[data-testid=server-clock]');
    } catch (e) {
      await page.screenshot({ path: path.join(out, `${p.name}-FAILED.png`) });
      errors.push(`${p.name}: ${e.message.split('\n')[0]}`);
      await page.close();
      continue;
    }
    await page.waitForLoadState('networkidle').catch(() => {});
    await frames(page);
    const size = page.viewportSize();
    if (p.full) {
      const h = await page.evaluate(() => document.querySelector('.page')?.scrollHeight ?? 0);
      if (h > size.height) {
        await page.setViewportSize({ width: size.width, height: h });
        await frames(page);
      }
    }
    const file = path.join(out, `${p.name}.png`);
    if (p.section) {
      // One section of a long page, with a margin of the page around it.
      const h = await page.evaluate(() => document.querySelector('.page')?.scrollHeight ?? 0);
      await page.setViewportSize({ width: size.width, height: Math.max(h, size.height) });
      await frames(page);
      const b = await page.locator(p.section).boundingBox();
      await page.screenshot({ path: file, clip: { x: b.x - 24, y: b.y - 24, width: b.width + 48, height: b.height + 48 } });
    } else await page.screenshot({ path: file });
    console.log('wrote', file);
    await page.close();
  }
} finally {
  await close();
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
