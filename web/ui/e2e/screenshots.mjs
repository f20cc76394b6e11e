// Screenshots of every page (development helper; the full browser test is e2e/run.mjs).
//   GANTRY_URL=http://127.0.0.1:8090 GANTRY_TOKEN=mock-token node e2e/screenshots.mjs [out-dir] [page...]
import fs from 'node:fs';
import path from 'node:path';
import { launch, watchErrors } from './browser.mjs';

const url = (process.env.GANTRY_URL ?? 'http://127.0.0.1:8090').replace(/\/$/, '');
const token = process.env.GANTRY_TOKEN ?? 'mock-token';
const out = path.resolve(process.argv[2] ?? 'e2e/screenshots');
const only = process.argv.slice(3);
fs.mkdirSync(out, { recursive: true });

const pages = [
  { name: 'login', hash: '', noToken: true, wait: '#token' },
  { name: 'pipelines', hash: '#/pipelines', wait: '[data-pipeline]' },
  {
    name: 'editor',
    hash: '#/editor/llm-finetune-nightly',
    wait: '.task-node',
    act: async (page) => {
      await page.click('.task-node[data-task="finetune"]');
      await page.waitForSelector('[data-testid=task-panel]');
    },
  },
  { name: 'editor-pipeline', hash: '#/editor/trigger-rules', wait: '.task-node' },
  {
    name: 'editor-yaml',
    hash: '#/editor/distributed-training',
    wait: '.task-node',
    act: async (page) => {
      await page.click('[data-testid=tab-yaml]');
      await page.waitForSelector('[data-testid=yaml-text]');
    },
  },
  {
    name: 'runs',
    hash: '#/runs/llm-finetune-nightly',
    wait: '[data-testid=gantt] canvas',
    act: async (page) => {
      const cell = page.locator('.rgrid .cell button[data-task="finetune"]').last();
      await cell.click();
    },
  },
  { name: 'cluster', hash: '#/cluster', wait: '.node-tile' },
  {
    name: 'whatif',
    hash: '#/whatif',
    wait: '.variant',
    act: async (page) => {
      await page.click('[data-testid=run-both]');
      await page.waitForSelector('[data-testid=comparison] table.compare');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=comparison] canvas').length >= 3);
    },
  },
];

const { context, close } = await launch();
const errors = [];
try {
  for (const p of pages) {
    if (only.length && !only.includes(p.name)) continue;
    const page = await context.newPage();
    watchErrors(page, errors);
    await page.goto(url + '/');
    await page.evaluate((t) => (t ? localStorage.setItem('gantry.token', t) : localStorage.removeItem('gantry.token')), p.noToken ? null : token);
    await page.goto(url + '/' + p.hash);
    await page.reload();
    try {
      await page.waitForSelector(p.wait, { timeout: 15000 });
    } catch (e) {
      await page.screenshot({ path: path.join(out, `${p.name}-FAILED.png`) });
      console.error(`${p.name}: ${e.message.split('\n')[0]}\n${errors.join('\n')}`);
      process.exitCode = 1;
      await page.close();
      continue;
    }
    if (p.act) await p.act(page);
    await page.waitForLoadState('networkidle').catch(() => {});
    await page.waitForTimeout(600); // let charts finish their first paint
    await page.screenshot({ path: path.join(out, `${p.name}.png`) });
    console.log('wrote', path.join(out, `${p.name}.png`));
    await page.close();
  }
} finally {
  await close();
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
