// Import of a cube-studio pipeline export (tencentmusic/cube-studio): its JSON of one pipeline
// and its tasks, turned into a Gantry `kind: Pipeline` document.
//
// The shape read (cube-studio's models Pipeline and Task, myapp/models/model_job.py):
//   pipeline: name, describe, project, namespace, dag_json ({"task": {"upstream": [...]}}, as a
//             JSON string or an object), global_env ("K=V" lines), schedule_type (once|crontab),
//             cron_time, parallelism, depends_on_past, max_active_runs, expired_limit,
//             parameter (JSON: cronjob_start_time), expand (the editor's node positions),
//             node_selector, image_pull_policy, alert_status, alert_user
//   task:     id, name, label, job_template (a name or {name, images, entrypoint}),
//             args (JSON string of the template's parameters: --image, --command,
//             --working_dir, --num_worker ...), command, working_dir, resource_cpu,
//             resource_memory, resource_gpu ("2", "0.5", "1(V100)", "1(nvidia,A100)"),
//             timeout (seconds), retry, skip, volume_mount, node_selector, outputs
// accepted as {"pipeline": {...}, "tasks": [...]}, a list of those, or a pipeline with its
// "tasks" inside. Every field that has no Gantry counterpart is listed in the notes, never
// dropped silently.

import { isMap, isSeq } from 'yaml';
import { kNewDocumentOptions, newDocument } from './bundle';
import { checkCpu, checkGpu, checkMemory, checkTaskName, kApiVersion, kTaskOrder } from './spec';
import { checkCron, checkTimezone } from './cron';
import { isPlainObject } from './util';
import type { Key, Params, T } from '../i18n/t';

// A note of the import: a message key of i18n/en.ts with its parameters, so that it reads in the
// language chosen when it is shown (importNoteText), not the one of the moment of the import.
// The parameters are the export's own words (names, values, fields) and, in `problem`, a check's
// message of spec.ts / cron.ts, which stays as the server and the loader word it.
export interface ImportNote {
  level: 'info' | 'warning';
  task?: string;
  key: Key;
  params?: Params;
}

// The note in the translator's language.
export const importNoteText = (n: ImportNote, t: T) => t(n.key, n.params);

export interface ImportResult {
  pipeline: Record<string, unknown>;
  positions: Record<string, { x: number; y: number }>; // by task name
  labels: Record<string, string>; // task name -> cube-studio label (printed as a comment)
  notes: ImportNote[];
}

export interface ImportOptions {
  // cube-studio evaluates cron_time in its server's local time: China time in its default
  // deployment.
  timezone?: string;
  now?: Date; // for the schedule's start when the export has none
}

type Obj = Record<string, unknown>;

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

function str(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return isPlainObject(v) && typeof v.name === 'string' ? v.name : '';
  return String(v).trim();
}

// Finds {pipeline, tasks} in the accepted shapes.
export function findExport(input: unknown): { pipeline: Obj; tasks: Obj[] } {
  let root = parseMaybeJson(input);
  if (Array.isArray(root)) {
    if (root.length === 0) throw new Error('the export is an empty list');
    root = root[0];
  }
  if (!isPlainObject(root)) throw new Error('expected a JSON object with "pipeline" and "tasks"');
  const pipeline = isPlainObject(root.pipeline) ? root.pipeline : root;
  const rawTasks = root.tasks ?? pipeline.tasks ?? root.task ?? pipeline.task;
  const tasks = Array.isArray(rawTasks) ? rawTasks.filter(isPlainObject) : [];
  if (!str(pipeline.name)) throw new Error('the pipeline has no "name"');
  if (tasks.length === 0) throw new Error(`pipeline "${str(pipeline.name)}" has no tasks (expected a "tasks" list)`);
  return { pipeline, tasks };
}

export function sanitizePipelineName(name: string): string {
  let s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 54)
    .replace(/-+$/, '');
  if (s.length < 2) s = `pipeline-${s}`.replace(/-+$/, '') || 'imported';
  return s;
}

function sanitizeTaskName(name: string): string {
  const s = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 63)
    .replace(/[^A-Za-z0-9]+$/, '');
  return s || 'task';
}

function templateOf(name: string): string {
  const n = name.toLowerCase();
  if (/pytorch|torch/.test(n)) return 'pytorchjob';
  if (/horovod|mpi/.test(n)) return 'mpijob';
  if (/xgb|xgboost/.test(n)) return 'xgboostjob';
  if (/(^|[^a-z])ray([^a-z]|$)/.test(n)) return 'rayjob';
  if (/spark/.test(n)) return 'sparkjob';
  if (/tensorflow|(^|[^a-z])tf([^a-z]|job|$)/.test(n)) return 'tfjob';
  return 'container';
}

function replicasFor(template: string, n: number): Record<string, number> | undefined {
  const workers = Math.max(1, Math.floor(n));
  switch (template) {
    case 'pytorchjob':
      return workers > 1 ? { master: 1, worker: workers - 1 } : { master: 1 };
    case 'xgboostjob':
      return workers > 1 ? { master: 1, worker: workers - 1 } : { master: 1 };
    case 'tfjob':
      return { worker: workers };
    case 'mpijob':
      return { launcher: 1, worker: workers };
    case 'rayjob':
      return { head: 1, worker: workers };
    case 'sparkjob':
      return { driver: 1, executor: workers };
    default:
      return undefined;
  }
}

const kGpuTypeNames: Record<string, string> = {
  a100: 'A100-80G',
  'a100-80g': 'A100-80G',
  h100: 'H100-80G',
  'h100-80g': 'H100-80G',
  h800: 'H800',
  a10: 'A10',
  t4: 'T4',
  v100: 'V100',
  l40s: 'L40S',
};

// "2" | "0.5" | "1(V100)" | "1（V100）" | "1(nvidia,A100)" | "0"
// A problem is a note's key and parameters (the import says it on the task).
export function parseCubeGpu(text: string): { gpu?: string; gpuType?: string; problem?: { key: Key; params: Params } } {
  const t = text.replace(/\s+/g, '');
  if (!t) return {};
  const m = /^([0-9.]+)(?:[(（]([^)）]*)[)）])?$/.exec(t);
  if (!m) return { problem: { key: 'importNote.gpuNotCount', params: { value: text } } };
  const count = m[1];
  if (Number(count) === 0) return {};
  let gpuType: string | undefined;
  if (m[2]) {
    const parts = m[2].split(',').map((p) => p.trim()).filter(Boolean);
    const model = parts[parts.length - 1];
    // "(npu)" or "(nvidia)" names a vendor, not a model.
    if (model && !/^(nvidia|npu|amd|intel|gpu)$/i.test(model)) gpuType = kGpuTypeNames[model.toLowerCase()] ?? model;
  }
  const problem = checkGpu(count);
  if (problem) return { problem: { key: 'importNote.badGpu', params: { value: text, problem } } };
  return { gpu: count, gpuType };
}

function lowerBound(text: string): string {
  return text.split('~')[0].trim();
}

export function formatSeconds(seconds: number): string {
  let s = Math.round(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join('');
}

// A local wall-clock time ("2023-05-01 08:00:00") in `zone` as an RFC 3339 UTC instant.
export function zonedToUtc(local: string, zone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim());
  if (!m) return null;
  const asUtc = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  const offsetAt = (t: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(t));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - t;
  };
  let t = asUtc - offsetAt(asUtc);
  t = asUtc - offsetAt(t);
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

function argsOf(task: Obj): Obj {
  const a = parseMaybeJson(task.args);
  if (!isPlainObject(a)) return {};
  // Some exports group the parameters ({"shell": {"--image": ...}}); flatten one level.
  const flat: Obj = {};
  for (const [k, v] of Object.entries(a)) {
    if (isPlainObject(v) && !k.startsWith('-')) Object.assign(flat, v);
    else flat[k] = v;
  }
  return flat;
}

function firstString(args: Obj, keys: string[]): string {
  for (const k of keys) {
    const v = args[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number') return String(v);
  }
  return '';
}

const kWorkerCountArgs = ['--num_worker', 'num_worker', '--num_workers', 'num_workers', '--worker_num', 'worker_num', '--num_executors', 'num_executors', '--executor_num', 'executor_num'];
// A Spark template's application and its arguments (cube-studio's spark job template).
const kSparkFileArgs = ['--code_file', 'code_file', '--file', '--main_file', '--py_file', '--jar'];
const kSparkArgumentArgs = ['--code_arguments', 'code_arguments', '--arguments', '--args'];
const kConsumedArgs = new Set([
  '--image', 'image', 'images', '--images',
  '--command', 'command', '--working_dir', 'working_dir', 'workdir', '--workdir',
  ...kWorkerCountArgs, ...kSparkFileArgs, ...kSparkArgumentArgs,
]);

// cube-studio's templates that deploy an inference service (deploy-service and the serving
// frameworks' own): Gantry runs inference services in scenarios (kind: Scenario, spec.services),
// not as pipeline tasks, so such a task is not imported, with a note saying so.
function deploysService(templateName: string): boolean {
  return /deploy[-_ ]?service|inference|serving|triton|torchserve|tfserving|tf-serving|vllm/i.test(templateName);
}

function jobTemplateName(t: Obj): string {
  const jt = isPlainObject(t.job_template) ? t.job_template : {};
  return str(t.job_template) || str(t.job_template_name) || str(jt.name) || str(t.template);
}

export function importCubeStudio(input: unknown, options: ImportOptions = {}): ImportResult {
  const { pipeline: p, tasks: rawTasks } = findExport(input);
  const notes: ImportNote[] = [];
  const timezone = options.timezone ?? 'Asia/Shanghai';
  const note = (level: ImportNote['level'], key: Key, params: Params, task?: string) => notes.push({ level, key, params, task });

  // ---- names and the DAG ----
  const name = sanitizePipelineName(str(p.name));
  if (name !== str(p.name)) note('info', 'importNote.pipelineRenamed', { from: str(p.name), to: name });

  const taskNames = new Map<string, string>(); // cube-studio name -> Gantry name
  const byId = new Map<string, string>(); // cube-studio task id -> Gantry name
  const taken = new Set<string>();
  for (const t of rawTasks) {
    const original = str(t.name) || str(t.label) || 'task';
    let n = sanitizeTaskName(original);
    for (let i = 2; taken.has(n); i++) n = `${sanitizeTaskName(original).slice(0, 60)}-${i}`;
    taken.add(n);
    taskNames.set(original, n);
    if (t.id !== undefined) byId.set(String(t.id), n);
    if (n !== original) note('info', 'importNote.taskRenamed', { from: original, to: n }, n);
  }

  const dagRaw = parseMaybeJson(p.dag_json);
  const dag: Obj = isPlainObject(dagRaw) ? dagRaw : {};
  // Task order: the DAG's (cube-studio keeps dag_json ordered by upstream), then the rest.
  const order: Obj[] = [];
  for (const dagName of Object.keys(dag)) {
    const t = rawTasks.find((x) => (str(x.name) || str(x.label)) === dagName);
    if (t && !order.includes(t)) order.push(t);
  }
  for (const t of rawTasks) if (!order.includes(t)) order.push(t);

  // Tasks that deploy an inference service are refused (deploysService()); a dependency on one
  // is dropped with its own note below.
  const services = new Set<string>();
  for (const t of order) {
    const jtName = jobTemplateName(t);
    if (!deploysService(jtName)) continue;
    const original = str(t.name) || str(t.label) || 'task';
    services.add(original);
    note('warning', 'importNote.serviceRefused', { template: jtName }, taskNames.get(original));
  }

  // ---- tasks ----
  const labels: Record<string, string> = {};
  const tasks = order.filter((t) => !services.has(str(t.name) || str(t.label) || 'task')).map((t) => {
    const original = str(t.name) || str(t.label) || 'task';
    const tname = taskNames.get(original)!;
    const args = argsOf(t);
    const jt = isPlainObject(t.job_template) ? t.job_template : {};
    const jtName = jobTemplateName(t);
    const template = templateOf(jtName);
    const out: Obj = { name: tname };
    if (template !== 'container') out.template = template;
    if (jtName) note('info', 'importNote.templateMapped', { jobTemplate: jtName, template }, tname);
    else note('warning', 'importNote.noTemplate', {}, tname);

    // image
    const image = firstString(args, ['--image', 'images', 'image', '--images']) || str(jt.images) || str(jt.image) || str(t.images);
    if (image) out.image = image;
    else {
      out.image = 'registry.local/REPLACE-ME:latest';
      note('warning', 'importNote.noImage', {}, tname);
    }

    // command
    const workdir = firstString(args, ['--working_dir', 'working_dir', 'workdir', '--workdir']) || str(t.working_dir) || str(jt.workdir);
    const argCommand = firstString(args, ['--command', 'command']);
    const taskCommand = typeof t.command === 'string' ? t.command.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(' && ') : '';
    const shell = argCommand || taskCommand;
    // The template's other parameters: a custom container template's entrypoint takes them as
    // flags; a distributed template's (Spark, PyTorch, ...) are its operator's settings, which
    // are not the container's command: listed in a note instead.
    const flags: string[] = [];
    for (const [k, v] of Object.entries(args)) {
      if (kConsumedArgs.has(k) || v === '' || v === null || v === false) continue;
      flags.push(k);
      if (v !== true) flags.push(typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const sparkFile = template === 'sparkjob' ? firstString(args, kSparkFileArgs) : '';
    if (shell) {
      out.command = ['bash', '-c', workdir ? `cd ${workdir} && ${shell}` : shell];
    } else if (sparkFile) {
      const appArgs = firstString(args, kSparkArgumentArgs);
      out.command = ['spark-submit', sparkFile, ...(appArgs ? appArgs.split(/\s+/).filter(Boolean) : [])];
      note('info', 'importNote.sparkApplication', { file: sparkFile }, tname);
    } else if (template === 'container') {
      const entry = str(jt.entrypoint);
      if (entry || flags.length) out.command = [...(entry ? entry.split(/\s+/) : []), ...flags];
    }
    if (template !== 'container' && flags.length)
      note('warning', 'importNote.parametersLeftOut', { flags: flags.join(' ') }, tname);
    if (!shell && workdir) note('warning', 'importNote.workdir', { dir: workdir }, tname);

    // replicas
    if (template !== 'container') {
      const n = Number(firstString(args, kWorkerCountArgs) || 1);
      out.replicas = replicasFor(template, Number.isFinite(n) && n > 0 ? n : 1);
    }

    // resources: cube-studio writes "request~limit"; Gantry requests the lower bound.
    const resources: Obj = {};
    const cpu = lowerBound(str(t.resource_cpu));
    if (cpu) {
      if (checkCpu(cpu)) note('warning', 'importNote.badCpu', { value: str(t.resource_cpu) }, tname);
      else resources.cpu = cpu;
    }
    const memory = lowerBound(str(t.resource_memory));
    if (memory) {
      if (checkMemory(memory)) note('warning', 'importNote.badMemory', { value: str(t.resource_memory) }, tname);
      else resources.memory = memory;
    }
    const gpu = parseCubeGpu(str(t.resource_gpu));
    if (gpu.problem) note('warning', gpu.problem.key, gpu.problem.params, tname);
    if (gpu.gpu) {
      resources.gpu = gpu.gpu;
      if (gpu.gpuType) resources.gpuType = gpu.gpuType;
    }
    if (Object.keys(resources).length) out.resources = resources;
    if (str(t.resource_rdma) && str(t.resource_rdma) !== '0') note('warning', 'importNote.rdma', { value: str(t.resource_rdma) }, tname);

    // dependencies
    const entry = dag[original];
    const upstream = isPlainObject(entry) && Array.isArray(entry.upstream) ? entry.upstream.map(String) : [];
    const deps: string[] = [];
    for (const u of upstream) {
      const mapped = taskNames.get(u);
      if (services.has(u)) note('warning', 'importNote.upstreamService', { task: u }, tname);
      else if (mapped && mapped !== tname && !deps.includes(mapped)) deps.push(mapped);
      else if (!mapped) note('warning', 'importNote.upstreamMissing', { task: u }, tname);
    }
    if (deps.length) out.dependsOn = deps;

    const timeout = Number(t.timeout);
    if (Number.isFinite(timeout) && timeout > 0) out.timeout = formatSeconds(timeout);
    const retry = Number(t.retry);
    if (Number.isFinite(retry) && retry > 0) out.retry = { limit: Math.floor(retry) };
    if (t.skip === true || t.skip === 1 || t.skip === 'true') out.skip = true;

    const label = str(t.label);
    if (label && label !== original) labels[tname] = label;
    for (const field of ['volume_mount', 'node_selector', 'outputs', 'hostAliases'] as const) {
      const v = str(t[field]);
      if (v && v !== '{}' && v !== '[]') note('info', 'importNote.taskField', { field, value: v.length > 60 ? v.slice(0, 57) + '...' : v }, tname);
    }
    if (checkTaskName(tname)) note('warning', 'importNote.badTaskName', { name: tname, problem: checkTaskName(tname)! }, tname);
    // Canonical key order.
    return Object.fromEntries(kTaskOrder.filter((k) => k in out).map((k) => [k, out[k]]));
  });

  // ---- the pipeline ----
  const metadata: Obj = { name };
  const namespace = str(p.namespace);
  if (namespace && /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(namespace)) metadata.namespace = namespace;
  const describe = str(p.describe);
  if (describe) metadata.description = describe;
  const labelsMeta: Record<string, string> = { 'imported-from': 'cube-studio' };
  if (p.id !== undefined) labelsMeta['cube-studio-id'] = String(p.id);
  const project = str(p.project);
  if (project) labelsMeta['cube-studio-project'] = project;
  metadata.labels = labelsMeta;

  const spec: Obj = {};
  const scheduleType = str(p.schedule_type) || (str(p.cron_time) ? 'crontab' : 'once');
  if (scheduleType === 'crontab') {
    const cron = str(p.cron_time).replace(/\s+/g, ' ');
    const problem = checkCron(cron) ?? checkTimezone(timezone);
    if (problem) {
      note('warning', 'importNote.badCron', { cron: str(p.cron_time), problem });
    } else {
      const param = parseMaybeJson(p.parameter);
      const startLocal = str(p.cronjob_start_time) || (isPlainObject(param) ? str(param.cronjob_start_time) : '');
      let start = startLocal ? zonedToUtc(startLocal, timezone) : null;
      if (!start) {
        const now = options.now ?? new Date();
        start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString().replace('.000Z', 'Z');
      }
      spec.schedule = { cron, timezone, start, catchup: false };
      note('info', 'importNote.schedule', { cron, zone: timezone });
    }
  }
  const concurrency: Obj = {};
  const maxActive = Number(p.max_active_runs);
  if (Number.isInteger(maxActive) && maxActive >= 1) concurrency.maxActiveRuns = maxActive;
  const expired = Number(p.expired_limit);
  if (Number.isInteger(expired) && expired > 0) {
    concurrency.keepLatest = expired;
    note('info', 'importNote.keepLatest', { n: expired });
  }
  if (Object.keys(concurrency).length) spec.concurrency = concurrency;
  if (p.depends_on_past === true || p.depends_on_past === 1 || p.depends_on_past === 'true') spec.dependsOnPast = true;
  const parallelism = Number(p.parallelism);
  if (Number.isInteger(parallelism) && parallelism > 0) spec.parallelism = parallelism;

  const env: Record<string, string> = {};
  for (const line of str(p.global_env).split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      env[key] = value;
      if (/\{\{.*\}\}/.test(value)) note('warning', 'importNote.envTemplate', { key, value });
    } else note('warning', 'importNote.envBadName', { key });
  }
  if (Object.keys(env).length) spec.env = env;
  spec.tasks = tasks;
  for (const field of ['node_selector', 'image_pull_policy', 'alert_status', 'alert_user'] as const) {
    const v = str(p[field]);
    if (v) note('info', 'importNote.pipelineField', { field, value: v });
  }

  // ---- positions from the cube-studio editor (pipeline.expand) ----
  const positions: Record<string, { x: number; y: number }> = {};
  const expand = parseMaybeJson(p.expand);
  if (Array.isArray(expand)) {
    for (const item of expand) {
      if (!isPlainObject(item) || !isPlainObject(item.position) || 'source' in item) continue;
      const data = isPlainObject(item.data) ? item.data : {};
      const byName = taskNames.get(str(data.taskName) || str(data.name));
      const n = byName ?? byId.get(str(item.id));
      const x = Number(item.position.x);
      const y = Number(item.position.y);
      if (n && Number.isFinite(x) && Number.isFinite(y)) positions[n] = { x, y };
    }
  }

  return {
    pipeline: { apiVersion: kApiVersion, kind: 'Pipeline', metadata, spec },
    positions,
    labels,
    notes,
  };
}

// The imported pipeline as YAML, each task's cube-studio label as a comment above it.
export function importToYaml(result: ImportResult, source = 'cube-studio'): string {
  const doc = newDocument(result.pipeline);
  doc.commentBefore = ` Imported from a ${source} export. Review the notes of the import before saving.`;
  const tasks = doc.getIn(['spec', 'tasks'], true);
  if (isSeq(tasks)) {
    for (const item of tasks.items) {
      if (!isMap(item)) continue;
      const label = result.labels[String(item.get('name'))];
      if (label) item.commentBefore = ` ${label}`;
    }
  }
  return doc.toString(kNewDocumentOptions);
}
