#!/usr/bin/env node
// The editor's figures of issue 10 ("a 500-task pipeline lays out in under 200 ms and drags at
// 60 fps in Chromium"), measured in Debian's Chromium against a running `gantry serve`:
//
//   GANTRY_URL=http://127.0.0.1:8080 GANTRY_TOKEN=... node e2e/perf.mjs [runs]   # default 5
//
// It applies `load-test-500` (500 tasks in layers of 20, each depending on 1 to 3 tasks of the
// layers before: 922 edges, the graph of test/bigPipeline.ts) through POST /api/v1/pipelines,
// then, `runs` times, each in a fresh tab: opens it in the editor, presses Auto-layout and reads
// how long the layout took (src/model/layout.ts records it), and drags a node across the canvas
// for 90 mouse moves while counting the frames the page paints (requestAnimationFrame).
// Prints every run and the median of each figure. Headless Chromium paints in software (no
// GPU), as on a build machine. Nothing is asserted: these are measurements for bench/RESULTS.md.
import { launch, watchErrors } from './browser.mjs';

const url = (process.env.GANTRY_URL ?? '').replace(/\/$/, '');
const token = process.env.GANTRY_TOKEN ?? '';
if (!url || !token) {
  console.error('set GANTRY_URL and GANTRY_TOKEN');
  process.exit(2);
}
const runs = Number(process.argv[2] ?? 5);
const kName = 'load-test-500';

// The graph of test/bigPipeline.ts (mulberry32, seed 7), so the browser lays out what
// `npm run bench` lays out in Node.
function bigPipeline(n, seed = 7) {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const tasks = [];
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / 20);
    const task = { name: `task-${i}`, image: 'registry.local/step:1', resources: { cpu: '1', memory: '1Gi' } };
    if (layer > 0) {
      const deps = new Set();
      const k = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < k; j++) {
        const from = Math.max(0, layer - 1 - Math.floor(rand() * 2)) * 20;
        deps.add(`task-${from + Math.floor(rand() * 20)}`);
      }
      task.dependsOn = [...deps];
    }
    tasks.push(task);
  }
  return { apiVersion: 'gantry.dev/v1', kind: 'Pipeline', metadata: { name: kName, namespace: 'perf' }, spec: { tasks } };
}

const doc = bigPipeline(500);
const edges = doc.spec.tasks.reduce((s, t) => s + (t.dependsOn?.length ?? 0), 0);
const applied = await fetch(`${url}/api/v1/pipelines`, {
  method: 'POST',
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  body: JSON.stringify(doc),
});
if (!applied.ok) {
  console.error(`POST /pipelines: ${applied.status} ${await applied.text()}`);
  process.exit(1);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { context, close } = await launch({ width: 1440, height: 900 });
const errors = [];
const results = [];
try {
  const first = await context.newPage();
  await first.goto(url + '/');
  await first.evaluate((t) => localStorage.setItem('gantry.token', t), token);
  await first.close();
  for (let i = 0; i < runs; i++) {
    const page = await context.newPage();
    watchErrors(page, errors);
    page.setDefaultTimeout(60000);
    await page.goto(`${url}/#/editor/${kName}`);
    await page.waitForSelector('.task-node');
    await page.evaluate(() => {
      delete globalThis.__gantryLayout;
    });
    await page.click('[data-testid=auto-layout]');
    await page.waitForFunction(() => globalThis.__gantryLayout !== undefined);
    const layout = await page.evaluate(() => globalThis.__gantryLayout);
    // Two frames for the new positions to be painted before the drag starts.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const box = await page.locator('.task-node').first().boundingBox();
    const a = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.evaluate(() => {
      globalThis.__frames = [];
      globalThis.__stop = false;
      const tick = (t) => {
        globalThis.__frames.push(t);
        if (!globalThis.__stop) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    for (let k = 1; k <= 90; k++) await page.mouse.move(a.x + k * 3, a.y + Math.sin(k / 8) * 40);
    await page.mouse.up();
    const f = await page.evaluate(() => {
      globalThis.__stop = true;
      const t = globalThis.__frames;
      const gaps = t.slice(1).map((x, i) => x - t[i]);
      return { frames: t.length, seconds: (t[t.length - 1] - t[0]) / 1000, longest: Math.max(...gaps) };
    });
    const fps = (f.frames - 1) / f.seconds;
    results.push({ layoutMs: layout.ms, fps, longest: f.longest });
    console.log(`run ${i + 1}: layout of ${layout.tasks} tasks ${layout.ms.toFixed(0)} ms; drag ${fps.toFixed(1)} frames/s over ${f.seconds.toFixed(1)} s, longest frame ${f.longest.toFixed(0)} ms`);
    await page.close();
  }
} finally {
  await close();
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
console.log(
  `median of ${runs}: layout ${median(results.map((r) => r.layoutMs)).toFixed(0)} ms (500 tasks, ${edges} edges), ` +
    `drag ${median(results.map((r) => r.fps)).toFixed(1)} frames/s, longest frame ${median(results.map((r) => r.longest)).toFixed(0)} ms`,
);
