#!/usr/bin/env node
// TEST FIXTURE — a stand-in for `gantry serve` while web/server is being written. Plain node
// http: it serves dist/ at / and canned answers in the shapes of web/API.md under /api/v1,
// including the Server-Sent Events of /api/v1/events. Nothing here is the real orchestrator:
// runs progress on a timer, the cluster and the simulations are made up (deterministically,
// from fixed seeds), and validation covers only the common mistakes.
//
//   node e2e/mock-server.mjs            # http://127.0.0.1:8090, token "mock-token"
//   PORT=9000 MOCK_TOKEN=t MOCK_BIG=1 node e2e/mock-server.mjs
//
// MOCK_BIG=1 adds a 500-task pipeline (for the editor's drag and layout timing).

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseAllDocuments } from 'yaml';
import { Cron } from 'croner';

const here = path.dirname(fileURLToPath(import.meta.url));
const PORT = Number(process.env.PORT ?? 8090);
const HOST = process.env.HOST ?? '127.0.0.1';
const TOKEN = process.env.MOCK_TOKEN ?? 'mock-token';
const DIST = path.resolve(process.env.DIST ?? path.join(here, '..', 'dist'));
const SCENARIOS = path.resolve(here, '..', '..', '..', 'scenarios');
const TASK_MS = Number(process.env.MOCK_TASK_MS ?? 1500); // wall time of a triggered task

// ---------------------------------------------------------------- helpers

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function hash(str) {
  let h = 2166136261;
  for (const c of str) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}
const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
function parseDuration(text, fallback = 60) {
  if (typeof text !== 'string') return fallback;
  const re = /(\d+(?:\.\d+)?)(ms|us|d|h|m|s)/g;
  let total = 0;
  let m;
  let any = false;
  while ((m = re.exec(text))) {
    any = true;
    total += Number(m[1]) * { d: 86400, h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6 }[m[2]];
  }
  return any ? total : fallback;
}

// ---------------------------------------------------------------- state

const pipelines = new Map(); // name -> { name, namespace, yaml, spec, paused }
const pools = new Map(); // name -> { name, slots, maxWait }
const runs = new Map(); // pipeline -> Run[] (newest first)
const simulations = new Map();
let simCounter = 0;

function topo(tasks) {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const out = [];
  const seen = new Set();
  const visit = (t, stack = new Set()) => {
    if (seen.has(t.name) || stack.has(t.name)) return;
    stack.add(t.name);
    for (const d of t.dependsOn ?? []) if (byName.has(d)) visit(byName.get(d), stack);
    seen.add(t.name);
    out.push(t);
  };
  tasks.forEach((t) => visit(t));
  return out;
}

function summary(p) {
  const list = runs.get(p.name) ?? [];
  const s = p.spec.spec?.schedule;
  let nextTicks = [];
  if (s?.cron && !p.paused) {
    try {
      const c = new Cron(s.cron, { timezone: s.timezone ?? 'UTC', paused: true, mode: '5-part', fixedTimeRule: 'no-wildcard' });
      const start = s.start ? Date.parse(s.start) : 0;
      const from = new Date(Math.max(Date.now(), start) - 1);
      nextTicks = c
        .nextRuns(5, from)
        .filter((d) => !s.end || d.getTime() <= Date.parse(s.end))
        .map((d) => iso(d.getTime()));
    } catch {
      nextTicks = [];
    }
  }
  const last = list[0];
  return {
    name: p.name,
    namespace: p.namespace,
    paused: p.paused,
    schedule: s?.cron ? { cron: s.cron, timezone: s.timezone ?? 'UTC' } : null,
    nextTicks,
    tasks: (p.spec.spec?.tasks ?? []).length,
    lastRun: last ? { logicalTime: last.logicalTime, state: last.state } : null,
    runsInFlight: list.filter((r) => r.state === 'running' || r.state === 'queued').length,
  };
}

// A past run of a pipeline, made up but consistent: tasks in dependency order, each taking its
// simulate.duration, a failure now and then (downstream tasks upstream_failed), a retry now
// and then.
function historicRun(p, logicalMs, trigger, r) {
  const tasks = topo(p.spec.spec?.tasks ?? []);
  const end = new Map();
  const state = new Map();
  const failAt = r() < 0.12 ? Math.floor(r() * tasks.length) : -1;
  const out = [];
  let runEnd = logicalMs;
  tasks.forEach((t, i) => {
    const deps = (t.dependsOn ?? []).filter((d) => end.has(d));
    const upstreamBad = deps.some((d) => state.get(d) === 'failed' || state.get(d) === 'upstream_failed');
    const startMs = Math.max(logicalMs, ...deps.map((d) => end.get(d)));
    const dur = parseDuration(typeof t.simulate?.duration === 'string' ? t.simulate.duration : t.simulate?.duration?.median, 60) * 1000 * (0.85 + r() * 0.3);
    if (upstreamBad && (t.triggerRule ?? 'all_success') === 'all_success') {
      state.set(t.name, 'upstream_failed');
      end.set(t.name, startMs);
      out.push({ name: t.name, state: 'upstream_failed', attempts: [] });
      return;
    }
    if (t.skip) {
      state.set(t.name, 'skipped');
      end.set(t.name, startMs);
      out.push({ name: t.name, state: 'skipped', attempts: [] });
      return;
    }
    const attempts = [];
    let at = startMs;
    const retries = t.retry?.limit ?? 0;
    if (retries > 0 && r() < 0.3) {
      attempts.push({ start: iso(at), end: iso(at + dur * 0.6), state: 'failed', reason: 'exit code 1' });
      at += dur * 0.6 + parseDuration(t.retry?.delay ?? '10s', 10) * 1000;
    }
    const failed = i === failAt;
    attempts.push({ start: iso(at), end: iso(at + dur), state: failed ? 'failed' : 'succeeded', ...(failed ? { reason: 'exit code 137 (OOMKilled)' } : {}) });
    at += dur;
    state.set(t.name, failed ? 'failed' : 'succeeded');
    end.set(t.name, at);
    runEnd = Math.max(runEnd, at);
    out.push({ name: t.name, state: failed ? 'failed' : 'succeeded', attempts });
  });
  const failedRun = [...state.values()].some((s) => s === 'failed' || s === 'upstream_failed');
  return { pipeline: p.name, logicalTime: iso(logicalMs), trigger, state: failedRun ? 'failed' : 'succeeded', start: iso(logicalMs), end: iso(runEnd), tasks: out };
}

function seedHistory(p) {
  const s = p.spec.spec?.schedule;
  const list = [];
  const r = rng(hash(p.name));
  if (s?.cron) {
    try {
      const c = new Cron(s.cron, { timezone: s.timezone ?? 'UTC', paused: true, mode: '5-part', fixedTimeRule: 'no-wildcard' });
      const until = Math.min(Date.now() - 60_000, s.end ? Date.parse(s.end) : Infinity);
      const ticks = c.previousRuns(24, new Date(until)).filter((d) => !s.start || d.getTime() >= Date.parse(s.start));
      for (const d of ticks) list.push(historicRun(p, d.getTime(), 'schedule', r));
    } catch {
      /* no history */
    }
  }
  runs.set(p.name, list);
}

function addPipeline(doc, yaml) {
  const name = doc.metadata.name;
  const old = pipelines.get(name);
  pipelines.set(name, { name, namespace: doc.metadata.namespace ?? 'default', yaml, spec: doc, paused: old?.paused ?? false });
  if (!runs.has(name)) seedHistory(pipelines.get(name));
  return !old;
}

function loadExamples() {
  const dir = path.join(SCENARIOS, 'pipelines');
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.yaml')).sort()) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const docs = parseAllDocuments(text);
    let from = 0;
    docs.forEach((d, i) => {
      const end = i === docs.length - 1 ? text.length : d.range[2];
      const slice = text.slice(from, end).replace(/^---\n/, '');
      from = end;
      const v = d.toJS();
      if (v?.kind === 'Pipeline') addPipeline(v, docs.length === 1 ? text : slice);
      if (v?.kind === 'Pool') pools.set(v.metadata.name, { name: v.metadata.name, slots: v.spec.slots, maxWait: v.spec.maxWait ?? null });
    });
  }
  // A GPU-heavy pipeline of the kind a platform team shows (made up for the mock).
  addPipeline(
    {
      apiVersion: 'gantry.dev/v1',
      kind: 'Pipeline',
      metadata: { name: 'llm-finetune-nightly', namespace: 'ml-platform' },
      spec: {
        schedule: { cron: '0 1 * * *', timezone: 'Europe/Paris', start: '2026-09-01T00:00:00Z' },
        concurrency: { maxActiveRuns: 1 },
        tasks: [
          { name: 'fetch-data', image: 'registry.local/datasets:3', resources: { cpu: '4', memory: '16Gi' }, simulate: { duration: '12m' } },
          { name: 'tokenize', template: 'sparkjob', image: 'registry.local/spark:3.5', replicas: { driver: 1, executor: 8 }, dependsOn: ['fetch-data'], simulate: { duration: '25m' } },
          { name: 'finetune', template: 'pytorchjob', image: 'registry.local/llm:7b', command: ['torchrun', 'finetune.py'], replicas: { master: 1, worker: 3 }, resources: { cpu: '32', memory: '256Gi', gpu: '8', gpuType: 'A100-80G' }, dependsOn: ['tokenize'], retry: { limit: 2, delay: '5m' }, simulate: { duration: '2h' } },
          { name: 'evaluate', image: 'registry.local/llm-eval:2', resources: { cpu: '8', memory: '64Gi', gpu: '1' }, dependsOn: ['finetune'], simulate: { duration: '20m' } },
          { name: 'safety-eval', image: 'registry.local/llm-eval:2', resources: { cpu: '8', memory: '64Gi', gpu: '0.5', gpuType: 'L40S' }, dependsOn: ['finetune'], simulate: { duration: '15m' } },
          { name: 'publish', image: 'registry.local/registry-cli:1', dependsOn: ['evaluate', 'safety-eval'], simulate: { duration: '2m' } },
        ],
      },
    },
    null,
  );
  const p = pipelines.get('llm-finetune-nightly');
  p.yaml = `# Nightly fine-tuning of the 7B model on yesterday's conversations.\n` + stringifyDoc(p.spec);
  if (process.env.MOCK_BIG) {
    const tasks = [];
    let s = 7;
    const r = rng(s);
    for (let i = 0; i < 500; i++) {
      const layer = Math.floor(i / 20);
      const t = { name: `step-${i}`, image: 'registry.local/step:1' };
      if (layer > 0) {
        const deps = new Set();
        const k = 1 + Math.floor(r() * 3);
        for (let j = 0; j < k; j++) deps.add(`step-${Math.max(0, layer - 1 - Math.floor(r() * 2)) * 20 + Math.floor(r() * 20)}`);
        t.dependsOn = [...deps];
      }
      tasks.push(t);
    }
    const doc = { apiVersion: 'gantry.dev/v1', kind: 'Pipeline', metadata: { name: 'load-test-500', namespace: 'perf' }, spec: { tasks } };
    addPipeline(doc, stringifyDoc(doc));
  }
}

function stringifyDoc(v) {
  // Small and dependency-free: JSON is valid YAML; the mock's own pipelines only.
  return JSON.stringify(v, null, 2) + '\n';
}

// ---------------------------------------------------------------- cluster

const cluster = (() => {
  const r = rng(42);
  const racks = [];
  const mk = (rack, count, gpus, gpuType, cpu, memGi, busy) => {
    const nodes = [];
    for (let i = 0; i < count; i++) {
      const g = [];
      for (let k = 0; k < gpus; k++) {
        const x = r();
        let milli = x < busy ? 1000 : x < busy + (gpuType === 'T4' ? 0.25 : 0.05) ? [250, 500, 750][Math.floor(r() * 3)] : 0;
        g.push({ index: k, allocatedMilli: milli });
      }
      const used = g.reduce((s, x) => s + x.allocatedMilli, 0) / (gpus * 1000 || 1);
      nodes.push({
        name: `${rack}-n${String(i).padStart(3, '0')}`,
        rack,
        gpuType,
        cordoned: false,
        ready: true,
        cpu: { capacityMilli: cpu * 1000, allocatedMilli: Math.round(cpu * 1000 * Math.min(1, used * 0.9 + r() * 0.1)) },
        memory: { capacityBytes: memGi * 2 ** 30, allocatedBytes: Math.round(memGi * 2 ** 30 * Math.min(1, used * 0.8 + r() * 0.1)) },
        gpus: g,
      });
    }
    racks.push({ name: rack, nodes });
  };
  mk('r1', 8, 8, 'A100-80G', 128, 1024, 0.72);
  mk('r2', 8, 8, 'A100-80G', 128, 1024, 0.55);
  mk('r3', 4, 8, 'H100-80G', 192, 2048, 0.85);
  mk('r4', 10, 4, 'T4', 64, 256, 0.3);
  mk('cpu', 4, 0, null, 96, 768, 0);
  racks[1].nodes[5].cordoned = true;
  racks[3].nodes[7].ready = false;
  racks[3].nodes[7].gpus.forEach((g) => (g.allocatedMilli = 0));
  return racks;
})();

function clusterView() {
  const types = new Map();
  let gpus = 0;
  let allocated = 0;
  for (const rack of cluster)
    for (const n of rack.nodes) {
      if (n.gpuType) types.set(n.gpuType, (types.get(n.gpuType) ?? 0) + n.gpus.length);
      gpus += n.gpus.length;
      allocated += n.gpus.reduce((s, g) => s + g.allocatedMilli, 0);
    }
  return { gpuTypes: [...types].map(([name, count]) => ({ name, count })), racks: cluster, totals: { gpus, allocatedMilli: allocated } };
}

const queue = [
  { workload: 'train-gpt-13b', name: 'train-gpt-13b', pipeline: null, gpus: 32, gpuMilli: 0, since: iso(Date.now() - 42 * 60e3), reason: 'gang of 4 pods x 8 GPUs: 2 nodes with 8 free A100-80G GPUs, 4 needed' },
  { workload: 'llm-finetune-nightly/finetune', name: 'finetune', pipeline: 'llm-finetune-nightly', gpus: 32, gpuMilli: 0, since: iso(Date.now() - 11 * 60e3), reason: 'queued behind train-gpt-13b (FIFO)' },
  { workload: 'reports/report', name: 'report', pipeline: 'reports', gpus: 0, gpuMilli: 500, since: iso(Date.now() - 4 * 60e3), reason: 'pool shared-gpus: 2 of 2 slots in use' },
  { workload: 'notebook-ana', name: 'notebook-ana', pipeline: null, gpus: 1, gpuMilli: 0, since: iso(Date.now() - 90e3), reason: 'no H100-80G GPU free' },
];

// ---------------------------------------------------------------- events (SSE)

const clients = new Set();
const buffer = []; // { id, type, data }
let eventId = 0;
function publish(type, data) {
  const ev = { id: ++eventId, type, data };
  buffer.push(ev);
  if (buffer.length > 2000) buffer.shift();
  for (const res of clients) writeEvent(res, ev);
}
function writeEvent(res, ev) {
  res.write(`id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev.data)}\n\n`);
}
const runHead = (r) => ({ pipeline: r.pipeline, logicalTime: r.logicalTime, trigger: r.trigger, state: r.state, start: r.start, end: r.end });

// ---------------------------------------------------------------- live runs

const live = []; // { run, spec, plan }

function startRun(p, trigger, logicalMs = Date.now()) {
  const logicalTime = iso(Math.floor(logicalMs / 1000) * 1000);
  const list = runs.get(p.name) ?? [];
  if (list.some((r) => r.logicalTime === logicalTime)) return null;
  const run = { pipeline: p.name, logicalTime, trigger, state: 'running', start: iso(Date.now()), end: null, tasks: (p.spec.spec?.tasks ?? []).map((t) => ({ name: t.name, state: 'pending', attempts: [] })) };
  list.unshift(run);
  runs.set(p.name, list);
  live.push({ run, tasks: p.spec.spec?.tasks ?? [] });
  publish('run', runHead(run));
  publish('pipeline', summary(p));
  return run;
}

function tick() {
  const now = Date.now();
  for (const l of live.slice()) {
    const { run, tasks } = l;
    const byName = new Map(run.tasks.map((t) => [t.name, t]));
    for (const spec of tasks) {
      const t = byName.get(spec.name);
      if (!t) continue;
      if (t.state === 'running') {
        const a = t.attempts[t.attempts.length - 1];
        if (now - Date.parse(a.start) >= TASK_MS) {
          a.end = iso(now);
          a.state = 'succeeded';
          t.state = 'succeeded';
          publish('attempt', { pipeline: run.pipeline, logicalTime: run.logicalTime, task: t.name, attempt: t.attempts.length - 1, state: a.state, start: a.start, end: a.end });
          publish('task', { pipeline: run.pipeline, logicalTime: run.logicalTime, task: t.name, state: t.state });
        }
      } else if (t.state === 'pending') {
        const deps = (spec.dependsOn ?? []).map((d) => byName.get(d)).filter(Boolean);
        if (deps.every((d) => d.state === 'succeeded' || d.state === 'skipped')) {
          if (spec.skip) {
            t.state = 'skipped';
          } else {
            t.state = 'running';
            t.attempts.push({ start: iso(now), end: null, state: 'running' });
            publish('attempt', { pipeline: run.pipeline, logicalTime: run.logicalTime, task: t.name, attempt: 0, state: 'running', start: iso(now), end: null });
          }
          publish('task', { pipeline: run.pipeline, logicalTime: run.logicalTime, task: t.name, state: t.state });
        }
      }
    }
    if (run.tasks.every((t) => ['succeeded', 'skipped', 'failed', 'upstream_failed', 'killed'].includes(t.state))) {
      run.state = run.tasks.some((t) => t.state === 'failed' || t.state === 'upstream_failed') ? 'failed' : 'succeeded';
      run.end = iso(now);
      live.splice(live.indexOf(l), 1);
      publish('run', runHead(run));
      const p = pipelines.get(run.pipeline);
      if (p) publish('pipeline', summary(p));
    }
  }
  // The cluster changes a little.
  if (Math.random() < 0.5) {
    const rack = cluster[Math.floor(Math.random() * 4)];
    const node = rack.nodes[Math.floor(Math.random() * rack.nodes.length)];
    if (node.ready && !node.cordoned && node.gpus.length) {
      const g = node.gpus[Math.floor(Math.random() * node.gpus.length)];
      g.allocatedMilli = [0, 0, 250, 500, 1000, 1000][Math.floor(Math.random() * 6)];
      publish('cluster', node); // the whole Node, as gantry serve sends it
    }
  }
  for (const s of simulations.values()) {
    if (s.state !== 'running') continue;
    s.progress = Math.min(1, s.progress + 0.06 + Math.random() * 0.05);
    if (s.progress >= 1) {
      s.state = 'done';
      s.result = simResult(s);
    }
    publish('simulation', { ...s, result: undefined });
  }
}
setInterval(tick, 250).unref();

// ---------------------------------------------------------------- simulations

function scenarioList() {
  const out = [];
  const read = (file) => {
    const text = fs.readFileSync(path.join(SCENARIOS, file), 'utf8');
    const lines = text.split('\n');
    const desc = [];
    for (const l of lines) {
      if (!l.startsWith('#')) break;
      desc.push(l.replace(/^#\s?/, ''));
    }
    const doc = parseAllDocuments(text)[0]?.toJS() ?? {};
    // Like gantry serve: only scenarios and experiments (an InferenceService file is for gantry tune).
    if (doc.kind && doc.kind !== 'Scenario' && doc.kind !== 'Experiment') return;
    const kind = doc.spec?.experiment ? 'Experiment' : 'Scenario';
    // Kept for the made-up results: the horizon and the inference services (serving/*.yaml).
    const workload = doc.spec?.workload ?? {};
    const serving = { horizon: parseDuration(doc.spec?.horizon, 86400), services: workload.services ?? [], jobs: Object.keys(workload).some((k) => k !== 'services') || !workload.services };
    out.push({ name: doc.metadata?.name ?? path.basename(file, '.yaml'), file: `scenarios/${file}`, kind, description: desc.join(' ').split('. ')[0].slice(0, 220) + '.', yaml: text, serving });
  };
  for (const f of fs.readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml')).sort()) read(f);
  for (const dir of ['whatif', 'serving']) for (const f of fs.readdirSync(path.join(SCENARIOS, dir)).filter((f) => f.endsWith('.yaml')).sort()) read(`${dir}/${f}`);
  return out;
}
let scenarios = null;
const getScenarios = () => (scenarios ??= scenarioList());

const kPolicyFactor = { binpack: 1, spread: 1.25, topology: 0.82, random: 1.4, dotproduct: 1.15, gpuclustering: 1.1, gpupacking: 1.05, bestfit: 1.02, fgd: 0.95 };

function simParams(s) {
  const pol = (s.policy ?? 'binpack').toLowerCase();
  const fabric = s.overrides?.fabric ?? 'InfiniBand';
  const nodes = s.overrides?.nodes ?? 32;
  const load = 32 / Math.max(4, nodes);
  const f = (kPolicyFactor[pol] ?? 1) * (fabric === 'TCP' ? 2.6 : fabric === 'RoCE' ? 1.15 : 1) * (s.overrides?.gpuType === 'H100-80G' ? 0.45 : s.overrides?.gpuType === 'V100' ? 2.2 : 1);
  return { jctMedian: 2600 * f, waitMedian: 5 * f * load * load * (s.scenario.includes('tcp') ? 6 : 1), alloc: Math.min(0.97, 0.72 * Math.sqrt(load) / Math.sqrt(f) * 1.05), nodes };
}

function simResult(s) {
  const sc = getScenarios().find((x) => x.name === s.scenario);
  if (sc?.kind === 'Experiment') {
    const series = fragCurves(s);
    return {
      scenario: s.scenario,
      capacity_gpus: 6212,
      policies: Object.entries(series).map(([name, pts]) => ({ name, seeds: 1, arrival_pct: pts.map((p) => p[0]), unallocated_gpu_pct_mean: pts.map((p) => p[1]) })),
    };
  }
  const p = simParams(s);
  const svc = servingOf(s, sc);
  if (svc && !sc.serving.jobs) return servicesOnlyResult(s, sc, svc);
  const r = rng(hash(s.id + s.seed));
  const noise = () => 0.95 + r() * 0.1;
  const jct = { count: 600, mean: p.jctMedian * 1.3 * noise(), p50: p.jctMedian * noise(), p95: p.jctMedian * 3.4 * noise(), p99: p.jctMedian * 5 * noise(), max: p.jctMedian * 7 * noise() };
  const wait = { count: 600, mean: p.waitMedian * 35 * noise(), p50: p.waitMedian * noise(), p95: p.waitMedian * 180 * noise(), p99: p.waitMedian * 700 * noise(), max: p.waitMedian * 1700 * noise() };
  return {
    scenario: s.scenario,
    seed: s.seed ?? 42,
    policy: { placement: s.policy ?? 'binpack', queue: 'Fifo', queueing: 'BestEffortFIFO' },
    cluster: { nodes: p.nodes, gpus: p.nodes * 8 },
    start: '2026-01-05T08:00:00Z',
    end: iso(Date.parse('2026-01-05T08:00:00Z') + 86400e3 * (1 + jct.p95 / 40000)),
    events: 3052,
    jobs: { total: 600, finished: 600, running_at_end: 0, queued_at_end: 0 },
    wait_s: wait,
    jct_s: jct,
    gpu: { allocation_ratio: p.alloc, busy_ratio: p.alloc * 0.995 },
    fingerprint: hash(s.id).toString(16).padStart(16, 'a'),
    results: `gantry-out/${s.scenario}/results.db`,
    ...(svc ? { services: svc.results } : {}),
  };
}

// ---- inference services (scenarios/serving): made up from the file's autoscaler, load and SLO

const kInterval = 300; // the report interval of the series, seconds
const kServingStart = Date.parse('2026-01-01T00:00:00Z');

// Per service, per report interval: the load, replicas ready and starting, p99; and the
// figures of --format json from them. An HPA on GPU utilisation sits at its maximum; a KPA
// follows the load with some flapping (cold starts, a worse p99); minReplicas 0 scales to zero.
function servingOf(s, sc) {
  if (!sc?.serving?.services.length) return null;
  const n = Math.max(1, Math.round(sc.serving.horizon / kInterval));
  const r = rng(hash(s.scenario + (s.seed ?? 42)));
  const load = rng(hash(sc.serving.services.map((x) => x.name).join() + (s.seed ?? 42))); // the same for A and B
  const series = [];
  const results = [];
  for (const spec of sc.serving.services) {
    const as = spec.autoscaler ?? {};
    const kpa = (as.kind ?? 'KPA') === 'KPA';
    const min = as.minReplicas ?? 1;
    const max = as.maxReplicas ?? 10;
    const perReplica = as.target?.concurrency ?? 10;
    const l = spec.load ?? {};
    const base = l.poisson?.qps ?? l.curve?.peakQps ?? (l.trace ? 26 : 5);
    const slo = parseDuration(spec.slo?.p99Latency, NaN);
    const cold = parseDuration(spec.coldStart?.load, 25) + parseDuration(spec.coldStart?.imagePull, 40);
    const pts = { name: spec.name, qps: [], p99: [], ready: [], starting: [] };
    let ready = Math.min(min, max);
    let coldStarts = Math.max(1, min);
    let served = 0;
    let within = 0;
    let gpuHours = 0;
    let most = ready;
    const lat = [];
    for (let i = 0; i < n; i++) {
      const t = iso(kServingStart + i * kInterval * 1000);
      const wave = l.curve ? 0.5 + 0.5 * Math.sin((2 * Math.PI * i * kInterval) / parseDuration(l.curve.period, 21600)) : 1;
      const qps = Math.max(0, base * wave * (0.9 + load() * 0.2));
      const want = Math.min(max, Math.max(min, kpa ? Math.ceil((qps * 1.2) / perReplica + (r() - 0.5) * 1.6) : i < 2 ? max * (i + 1) / 2 : max));
      const starting = want > ready ? (want - ready) * (cold / kInterval) : kpa ? r() * 0.3 : 0;
      if (want > ready) coldStarts += Math.round(want - ready);
      ready = want;
      const p99 = qps * kInterval < 0.5 ? null : i === 0 ? cold * 3 : starting > 0.5 ? cold * (0.3 + r() * 0.4) : 1.2 + (kpa ? r() * 2.5 : r() * 0.1);
      pts.qps.push([t, Math.round(qps * 1000) / 1000]);
      pts.p99.push([t, p99 === null ? null : Math.round(p99 * 1e3) / 1e3]);
      pts.ready.push([t, Math.round(ready * 100) / 100]);
      pts.starting.push([t, Math.round(starting * 100) / 100]);
      most = Math.max(most, Math.ceil(ready + starting));
      const reqs = qps * kInterval;
      served += reqs;
      if (p99 !== null) {
        lat.push(p99);
        within += Number.isNaN(slo) || p99 <= slo ? reqs : reqs * 0.9;
      }
      gpuHours += ((ready + starting) * Number(spec.predictors?.[0]?.resources?.gpu ?? 1) * kInterval) / 3600;
    }
    lat.sort((a, b) => a - b);
    const q = (f) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(f * lat.length))] : 0);
    const requests = Math.round(served);
    const preds = spec.predictors ?? [{ name: 'v1' }];
    const canary = spec.canaryTrafficPercent;
    const share = preds.map((p, i) => (canary !== undefined && preds.length > 1 ? (i === preds.length - 1 ? canary : (100 - canary) / (preds.length - 1)) : p.traffic ?? 100 / preds.length));
    series.push(pts);
    results.push({
      name: spec.name,
      requests,
      p50_s: Math.round(q(0.5) * 0.9 * 1e6) / 1e6,
      p99_s: Math.round(q(0.99) * 1e6) / 1e6,
      slo_attainment: Number.isNaN(slo) ? 1 : Math.round((within / Math.max(1, served)) * 1e6) / 1e6,
      gpu_hours: Math.round(gpuHours * 1e6) / 1e6,
      cold_starts: coldStarts,
      max_replicas: most * preds.length,
      slo_p99_s: Number.isNaN(slo) ? null : slo,
      unserved: 0,
      cold_start_p50_s: coldStarts ? cold : null,
      predictors: preds.map((p, i) => ({ name: p.name, traffic_percent: share[i], requests: Math.round((requests * share[i]) / 100), p99_s: Math.round(q(0.99) * (1 + i * 0.1) * 1e6) / 1e6, cold_starts: Math.round(coldStarts / preds.length), max_replicas: most })),
    });
  }
  return { series, results, horizon: sc.serving.horizon };
}

// A scenario of services alone: no jobs (zeros), the GPUs the replicas held.
function servicesOnlyResult(s, sc, svc) {
  const zeros = { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
  const gpus = 16;
  const alloc = Math.min(1, svc.results.reduce((a, x) => a + x.gpu_hours, 0) / ((gpus * svc.horizon) / 3600));
  return {
    scenario: s.scenario,
    seed: s.seed ?? 42,
    policy: { placement: s.policy ?? 'binpack', queue: 'Fifo', queueing: 'BestEffortFIFO' },
    cluster: { nodes: 4, gpus },
    start: iso(kServingStart),
    end: iso(kServingStart + svc.horizon * 1000),
    events: 1465,
    jobs: { total: 0, finished: 0, running_at_end: 0, queued_at_end: 0 },
    wait_s: zeros,
    jct_s: zeros,
    gpu: { allocation_ratio: alloc, busy_ratio: alloc * 0.999 },
    fingerprint: hash(s.id).toString(16).padStart(16, 'a'),
    services: svc.results,
  };
}

function lognormalCdf(median, sigma, points = 60, lo = 1, hi = 1e5) {
  const erf = (x) => {
    const t = 1 / (1 + 0.3275911 * Math.abs(x));
    const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
    return x >= 0 ? y : -y;
  };
  const out = [];
  for (let i = 0; i <= points; i++) {
    const x = lo * Math.pow(hi / lo, i / points);
    out.push([Math.round(x * 10) / 10, Math.round(1000 * 0.5 * (1 + erf(Math.log(x / median) / (sigma * Math.SQRT2)))) / 1000]);
  }
  return out;
}

function fragCurves(s) {
  const base = { Random: 13.7, DotProduct: 9.4, GpuClustering: 8.4, GpuPacking: 8.2, BestFit: 7.1, FGD: 4.8 };
  const only = s.policy ? Object.keys(base).filter((k) => k.toLowerCase() === s.policy.toLowerCase()) : [];
  const names = only.length ? only : Object.keys(base);
  const out = {};
  for (const n of names) {
    const pts = [];
    for (let a = 0; a <= 130; a += 2) {
      const rise = a < 60 ? 0 : Math.min(1, (a - 60) / 35);
      pts.push([a, Math.round(Math.max(0, 100 - a) * (1 - rise) * 10 + base[n] * rise * 10) / 10]);
    }
    out[n] = pts;
  }
  return out;
}

function simSeries(s) {
  const sc = getScenarios().find((x) => x.name === s.scenario);
  if (sc?.kind === 'Experiment') return { gpuAllocation: [], jctCdf: [], waitCdf: [], services: [], unallocatedGpuPct: fragCurves(s) };
  const svc = servingOf(s, sc);
  if (svc && !sc.serving.jobs) {
    // The GPUs the replicas hold (a GPU per replica, 16 GPUs), a point per change.
    const held = svc.series[0].ready.map(([t, y], i) => [t, Math.min(1, Math.round(y + svc.series[0].starting[i][1]) / 16)]);
    return { gpuAllocation: held.filter((x, i) => i === 0 || x[1] !== held[i - 1][1]), jctCdf: [], waitCdf: [], services: svc.series, unallocatedGpuPct: {} };
  }
  const p = simParams(s);
  const r = rng(hash(s.id));
  const start = Date.parse('2026-01-05T08:00:00Z');
  const alloc = [];
  let v = 0;
  for (let i = 0; i <= 144; i++) {
    const target = i < 12 ? (p.alloc * i) / 12 : i > 130 ? p.alloc * Math.max(0, (144 - i) / 14) : p.alloc;
    v = Math.max(0, Math.min(1, target + (r() - 0.5) * 0.08));
    alloc.push([iso(start + i * 600e3), Math.round(v * 1000) / 1000]);
  }
  return { gpuAllocation: alloc, jctCdf: lognormalCdf(p.jctMedian, 0.9, 60, 30, 60000), waitCdf: lognormalCdf(Math.max(1, p.waitMedian), 2.2, 60, 0.5, 30000), services: svc?.series ?? [], unallocatedGpuPct: {} };
}

// ---------------------------------------------------------------- validation (the common mistakes)

const kTemplates = ['container', 'tfjob', 'pytorchjob', 'mpijob', 'xgboostjob', 'rayjob', 'sparkjob'];

function validate(text) {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc });
  const errors = [];
  const at = (doc, pathArr, message) => {
    let node = null;
    for (let i = pathArr.length; i >= 0 && !node; i--) node = pathArr.length ? doc.getIn(pathArr.slice(0, i), true) : doc.contents;
    const pos = lc.linePos(node?.range?.[0] ?? 0);
    const p = pathArr.map((x, i) => (typeof x === 'number' ? `[${x}]` : i ? `.${x}` : x)).join('');
    errors.push({ file: 'body', line: pos.line, column: pos.col, path: p, message });
  };
  const parsed = [];
  for (const doc of docs) {
    if (doc.errors.length) {
      for (const e of doc.errors) {
        const pos = lc.linePos(e.pos[0]);
        errors.push({ file: 'body', line: pos.line, column: pos.col, path: '', message: e.message.split('\n')[0] });
      }
      continue;
    }
    const v = doc.toJS();
    if (!v) continue;
    if (v.apiVersion !== 'gantry.dev/v1') at(doc, ['apiVersion'], `unsupported apiVersion "${v.apiVersion}"; expected gantry.dev/v1`);
    if (v.kind === 'Pool') {
      if (!(Number.isInteger(v.spec?.slots) && v.spec.slots >= 1)) at(doc, ['spec', 'slots'], 'expected an integer from 1 to 1000000');
      parsed.push(v);
      continue;
    }
    if (v.kind !== 'Pipeline') {
      at(doc, ['kind'], `expected one of: Pipeline, Pool; got "${v.kind}"`);
      continue;
    }
    const name = v.metadata?.name;
    if (!name || !/^[a-z][a-z0-9-]*[a-z0-9]$/.test(name) || name.length > 54) at(doc, ['metadata', 'name'], `expected a pipeline name of lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (^[a-z][a-z0-9-]*[a-z0-9]$), got "${name ?? ''}"`);
    const s = v.spec?.schedule;
    if (s) {
      if (!s.cron) at(doc, ['spec', 'schedule'], 'missing required field "cron"');
      else
        try {
          new Cron(s.cron, { mode: '5-part', paused: true, timezone: s.timezone ?? 'UTC' });
        } catch (e) {
          at(doc, ['spec', 'schedule', 'cron'], String(e.message).replace(/^CronPattern: /, ''));
        }
      if (!s.start) at(doc, ['spec', 'schedule'], 'missing required field "start"');
    }
    const tasks = v.spec?.tasks;
    if (!Array.isArray(tasks) || tasks.length === 0) {
      at(doc, ['spec', 'tasks'], 'a pipeline needs at least one task');
      parsed.push(v);
      continue;
    }
    const names = new Set(tasks.map((t) => t?.name));
    tasks.forEach((t, i) => {
      if (!t?.name || !/^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/.test(t.name)) at(doc, ['spec', 'tasks', i, 'name'], `expected a task name of at most 63 letters, digits, '-' and '_', got "${t?.name ?? ''}"`);
      const tpl = t.template ?? 'container';
      if (!kTemplates.includes(tpl)) at(doc, ['spec', 'tasks', i, 'template'], `expected one of: ${kTemplates.join(', ')}; got "${tpl}"`);
      else if (tpl !== 'container' && !t.replicas) at(doc, ['spec', 'tasks', i], 'missing required field "replicas" (a distributed template needs the count of each role, such as {master: 1, worker: 4})');
      const gpu = t.resources?.gpu;
      if (gpu !== undefined) {
        const g = String(gpu);
        if (!/^\d+(\.\d{1,3})?$/.test(g) || (Number(g) > 1 && !Number.isInteger(Number(g)))) at(doc, ['spec', 'tasks', i, 'resources', 'gpu'], `expected a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5, got "${g}"`);
      }
      if (t.resources?.gpuType && !gpu) at(doc, ['spec', 'tasks', i, 'resources', 'gpuType'], 'gpuType applies to tasks that request a GPU; add gpu: N or remove gpuType');
      (t.dependsOn ?? []).forEach((d, j) => {
        if (!names.has(d)) at(doc, ['spec', 'tasks', i, 'dependsOn', j], `unknown task "${d}"; tasks of this pipeline: ${[...names].join(', ')}`);
      });
      if (t.pool && !pools.has(t.pool) && !docs.some((d) => d.toJS()?.kind === 'Pool' && d.toJS()?.metadata?.name === t.pool)) at(doc, ['spec', 'tasks', i, 'pool'], `unknown pool "${t.pool}"; declared pools: ${[...pools.keys()].join(', ')}`);
    });
    // cycles
    const idx = new Map(tasks.map((t, i) => [t.name, i]));
    const color = new Map();
    const dfs = (i, stack) => {
      color.set(i, 1);
      stack.push(i);
      (tasks[i].dependsOn ?? []).forEach((d, j) => {
        const k = idx.get(d);
        if (k === undefined) return;
        if (color.get(k) === 1) {
          const cyc = stack.slice(stack.indexOf(k)).map((x) => tasks[x].name);
          at(doc, ['spec', 'tasks', i, 'dependsOn', j], `cycle: ${[...cyc, cyc[0]].join(' -> ')}`);
        } else if (!color.get(k)) dfs(k, stack);
      });
      stack.pop();
      color.set(i, 2);
    };
    tasks.forEach((_, i) => !color.get(i) && dfs(i, []));
    parsed.push(v);
  }
  return { errors, docs, parsed };
}

// ---------------------------------------------------------------- HTTP

// The Access page's data (GET /tokens, GET /audit): made up, in the API's shapes.
let mockTokens = [
  { id: 1, name: 'mock-admin', role: 'admin', created: iso(Date.now() - 86400000), lastUsed: iso(Date.now()) },
  { id: 2, name: 'ana', role: 'editor', created: iso(Date.now() - 3600000), lastUsed: null },
  { id: 3, name: 'dashboard', role: 'viewer', created: iso(Date.now() - 3600000), lastUsed: iso(Date.now() - 60000) },
];
const mockAudit = [
  { id: 2, at: iso(Date.now() - 60000), token: 'dashboard', role: 'viewer', method: 'POST', route: '/api/v1/pipelines/{name}/trigger', path: '/api/v1/pipelines/feature-etl/trigger', target: { name: 'feature-etl' }, status: 403 },
  { id: 1, at: iso(Date.now() - 120000), token: 'ana', role: 'editor', method: 'POST', route: '/api/v1/pipelines/{name}/trigger', path: '/api/v1/pipelines/feature-etl/trigger', target: { name: 'feature-etl' }, status: 201 },
];

function send(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(text);
}
const fail = (res, status, code, message) => send(res, status, { error: { code, message } });

async function readBody(req, limit = 4 << 20) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > limit) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const kTypes = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2' };
function serveStatic(req, res, pathname) {
  let rel;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return send(res, 400, 'bad path');
  }
  const file = path.resolve(DIST, '.' + path.posix.normalize('/' + rel));
  if (!file.startsWith(DIST + path.sep) && file !== DIST) return send(res, 404, 'not found');
  let target = file;
  if (!fs.existsSync(target) || fs.statSync(target).isDirectory()) target = path.join(DIST, 'index.html');
  if (!fs.existsSync(target)) return send(res, 404, `no ${DIST}/index.html: run npm run build first`);
  res.writeHead(200, { 'Content-Type': kTypes[path.extname(target)] ?? 'application/octet-stream', 'Cache-Control': target.endsWith('index.html') ? 'no-cache' : 'max-age=3600' });
  fs.createReadStream(target).pipe(res);
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, `http://${req.headers.host ?? 'localhost'}`);
  const p = url.pathname;
  try {
    if (p === '/healthz') return send(res, 200, 'ok');
    if (p === '/readyz') return send(res, 200, 'ready');
    if (!p.startsWith('/api/')) return serveStatic(req, res, p);
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : p === '/api/v1/events' ? url.searchParams.get('token') : null;
    if (token !== TOKEN) return fail(res, 401, 'unauthorized', 'missing or invalid token');
    if (process.env.MOCK_LATENCY) await new Promise((r) => setTimeout(r, Number(process.env.MOCK_LATENCY)));
    const parts = p.replace(/^\/api\/v1\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
    const m = req.method;

    if (parts[0] === 'events' && m === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.write(': gantry mock events\n\n');
      const last = Number(req.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? NaN);
      if (Number.isFinite(last)) {
        if (buffer.length && last < buffer[0].id - 1) writeEvent(res, { id: eventId, type: 'reset', data: {} });
        else for (const ev of buffer) if (ev.id > last) writeEvent(res, ev);
      }
      clients.add(res);
      const ping = setInterval(() => res.write(': ping\n\n'), 15000);
      req.on('close', () => {
        clearInterval(ping);
        clients.delete(res);
      });
      return;
    }

    if (parts[0] === 'pipelines') {
      if (parts.length === 1 && m === 'GET') return send(res, 200, { pipelines: [...pipelines.values()].sort((a, b) => a.name.localeCompare(b.name)).map(summary) });
      if (parts.length === 1 && m === 'POST') {
        const body = await readBody(req);
        const dry = url.searchParams.get('dryRun') === 'true';
        let docsText = body;
        if ((req.headers['content-type'] ?? '').includes('json')) {
          const j = JSON.parse(body);
          docsText = (j.items ?? [j]).map((x) => JSON.stringify(x)).join('\n---\n');
        }
        const { errors, docs, parsed } = validate(docsText);
        if (errors.length) return send(res, 400, { errors });
        const out = { pipelines: [], pools: [] };
        let created = false;
        let from = 0;
        docs.forEach((d, i) => {
          const end = i === docs.length - 1 ? docsText.length : d.range[2];
          const slice = docsText.slice(from, end).replace(/^---\n/, '');
          from = end;
          const v = d.toJS();
          if (v?.kind === 'Pool') {
            if (!dry) pools.set(v.metadata.name, { name: v.metadata.name, slots: v.spec.slots, maxWait: v.spec.maxWait ?? null });
            out.pools.push({ name: v.metadata.name, slots: v.spec.slots, inUse: 0, waiting: 0, maxWait: v.spec.maxWait ?? null });
          } else if (v?.kind === 'Pipeline') {
            if (dry) out.pipelines.push(summary({ name: v.metadata.name, namespace: v.metadata.namespace ?? 'default', spec: v, paused: false }));
            else {
              created = addPipeline(v, docs.length === 1 ? docsText : slice) || created;
              const s = summary(pipelines.get(v.metadata.name));
              out.pipelines.push(s);
              publish('pipeline', s);
            }
          }
        });
        return send(res, dry ? 200 : created ? 201 : 200, out);
      }
      const pl = pipelines.get(parts[1]);
      if (!pl) return fail(res, 404, 'not_found', `no pipeline '${parts[1]}'`);
      if (parts.length === 2 && m === 'GET') return send(res, 200, { ...summary(pl), yaml: pl.yaml, spec: pl.spec });
      if (parts.length === 2 && m === 'DELETE') {
        pipelines.delete(pl.name);
        return send(res, 200, { deleted: pl.name });
      }
      if (parts.length === 3 && m === 'POST' && (parts[2] === 'pause' || parts[2] === 'resume')) {
        pl.paused = parts[2] === 'pause';
        const s = summary(pl);
        publish('pipeline', s);
        return send(res, 200, s);
      }
      if (parts.length === 3 && m === 'POST' && parts[2] === 'trigger') {
        const run = startRun(pl, 'manual');
        if (!run) return fail(res, 409, 'conflict', 'a run exists at that instant');
        return send(res, 201, run);
      }
      if (parts.length === 3 && m === 'POST' && parts[2] === 'backfill') return send(res, 200, { created: 0, rerun: 0, untouched: 0 });
      if (parts[2] === 'runs') {
        const list = runs.get(pl.name) ?? [];
        if (parts.length === 3 && m === 'GET') {
          let l = list;
          const st = url.searchParams.get('state');
          if (st) l = l.filter((r) => r.state === st);
          // from / to: logical times, both ends included (the server's run_queries.cpp).
          const from = url.searchParams.get('from');
          const to = url.searchParams.get('to');
          if (from) l = l.filter((r) => Date.parse(r.logicalTime) >= Date.parse(from));
          if (to) l = l.filter((r) => Date.parse(r.logicalTime) <= Date.parse(to));
          const after = url.searchParams.get('after');
          if (after) l = l.filter((r) => r.logicalTime < after);
          const limit = Math.min(500, Number(url.searchParams.get('limit') ?? 50));
          const page = l.slice(0, limit);
          return send(res, 200, { runs: page, next: l.length > limit ? page[page.length - 1].logicalTime : null });
        }
        const run = list.find((r) => r.logicalTime === parts[3]);
        if (!run) return fail(res, 404, 'not_found', `no run of '${pl.name}' at ${parts[3]}`);
        if (parts.length === 4 && m === 'GET') return send(res, 200, run);
        if (parts.length === 5 && m === 'POST' && parts[4] === 'mark-success') {
          run.state = 'succeeded';
          run.end = run.end ?? iso(Date.now());
          for (const t of run.tasks) if (t.state !== 'succeeded' && t.state !== 'skipped') t.state = 'succeeded';
          publish('run', runHead(run));
          return send(res, 200, run);
        }
        if (parts.length === 5 && m === 'POST' && parts[4] === 'rerun') {
          run.state = 'running';
          run.end = null;
          for (const t of run.tasks) if (t.state !== 'succeeded' && t.state !== 'skipped') t.state = 'pending';
          live.push({ run, tasks: pl.spec.spec?.tasks ?? [] });
          publish('run', runHead(run));
          return send(res, 200, run);
        }
      }
      return fail(res, 404, 'not_found', 'no such route');
    }
    if (parts[0] === 'whoami' && m === 'GET') return send(res, 200, { role: 'admin', name: 'mock-admin' });
    // Tokens and the audit log: a canned list (the mock records nothing); revoking removes a row.
    if (parts[0] === 'tokens' && parts.length === 1 && m === 'GET') return send(res, 200, { tokens: mockTokens });
    if (parts[0] === 'tokens' && parts.length === 2 && m === 'DELETE') {
      const t = mockTokens.find((x) => x.name === parts[1]);
      if (!t) return fail(res, 404, 'not_found', `no token named '${parts[1]}'`);
      mockTokens = mockTokens.filter((x) => x !== t);
      return send(res, 200, { revoked: t });
    }
    if (parts[0] === 'audit' && m === 'GET') return send(res, 200, { entries: mockAudit, next: null });
    // The mock runs on the wall clock.
    if (parts[0] === 'clock' && m === 'GET') return send(res, 200, { now: new Date().toISOString(), speed: 1 });
    if (parts[0] === 'pools' && m === 'GET')
      return send(res, 200, { pools: [...pools.values()].map((x) => ({ ...x, inUse: x.name === 'shared-gpus' ? 2 : 0, waiting: x.name === 'shared-gpus' ? 1 : 0 })) });
    if (parts[0] === 'cluster' && parts.length === 1 && m === 'GET') return send(res, 200, clusterView());
    if (parts[0] === 'cluster' && parts[1] === 'queue' && m === 'GET') return send(res, 200, { pending: queue });
    if (parts[0] === 'scenarios' && m === 'GET') {
      if (parts.length === 1) return send(res, 200, { scenarios: getScenarios().map(({ yaml, serving, ...x }) => x) });
      const sc = getScenarios().find((x) => x.name === parts[1]);
      return sc ? send(res, 200, { name: sc.name, yaml: sc.yaml }) : fail(res, 404, 'not_found', `no scenario '${parts[1]}'`);
    }
    // Sweeps and plans need gantry serve's simulator and report/: the mock ships none, so the
    // what-if page says it has none (rather than failing on routes that do not exist).
    if ((parts[0] === 'sweeps' || parts[0] === 'plans') && m === 'GET' && parts.length <= 2) {
      if (parts.length === 1 || parts[1] === 'catalog') return send(res, 200, { [parts[0]]: [] });
      return fail(res, 404, 'not_found', `no ${parts[0].slice(0, -1)} '${parts[1]}'`);
    }
    // Distributed sweeps come from `gantry sweep --on kubernetes` and its pods: none here (the
    // what-if page shows how to start one).
    if (parts[0] === 'distributed-sweeps' && m === 'GET') {
      if (parts.length === 1) return send(res, 200, { sweeps: [] });
      return fail(res, 404, 'not_found', `no distributed sweep '${parts[1]}'`);
    }
    if (parts[0] === 'simulations') {
      if (parts.length === 1 && m === 'POST') {
        const body = JSON.parse((await readBody(req)) || '{}');
        const name = body.scenarioName ?? 'custom';
        if (body.scenarioName && !getScenarios().some((x) => x.name === name)) return fail(res, 404, 'not_found', `no scenario '${name}'`);
        const s = { id: `sim-${++simCounter}`, state: 'running', progress: 0, scenario: name, seed: body.seed ?? 42, policy: body.policy ?? null, created: iso(Date.now()), result: null, error: null, overrides: body.overrides ?? {} };
        simulations.set(s.id, s);
        return send(res, 202, s);
      }
      if (parts.length === 1 && m === 'GET') return send(res, 200, { simulations: [...simulations.values()].reverse().map((s) => ({ ...s, result: s.state === 'done' ? s.result : null })) });
      const s = simulations.get(parts[1]);
      if (!s) return fail(res, 404, 'not_found', `no simulation '${parts[1]}'`);
      if (parts.length === 2 && m === 'GET') return send(res, 200, s);
      if (parts.length === 2 && m === 'DELETE') {
        simulations.delete(s.id);
        return send(res, 200, { deleted: s.id });
      }
      if (parts[2] === 'series' && m === 'GET') return s.state === 'done' ? send(res, 200, simSeries(s)) : fail(res, 409, 'conflict', 'the simulation is still running');
    }
    return fail(res, 404, 'not_found', `no route ${m} ${p}`);
  } catch (e) {
    return fail(res, e.status ?? 500, e.status === 413 ? 'too_large' : 'internal', String(e.message ?? e));
  }
});

loadExamples();
server.listen(PORT, HOST, () => {
  console.log(`gantry mock server (test fixture) on http://${HOST}:${PORT}  token: ${TOKEN}  dist: ${DIST}`);
});
