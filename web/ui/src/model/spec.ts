// What a `kind: Pipeline` document may contain, as workflow/pipeline/pipeline_loader.cpp reads
// it and workflow/pipeline/pipeline_spec.hpp states its defaults. The side panels edit exactly
// these fields; anything else in a document is kept as it is.

import { t as tr, type T } from '../i18n/t';

export const kApiVersion = 'gantry.dev/v1';

export type TemplateName = 'container' | 'tfjob' | 'pytorchjob' | 'mpijob' | 'xgboostjob' | 'rayjob' | 'sparkjob';

export interface TemplateInfo {
  name: TemplateName;
  label: string;
  distributed: boolean;
  // Replicas a new task of this template starts with (the loader requires replicas for
  // distributed templates and refuses them for container).
  replicas?: Record<string, number>;
  image: string;
  command?: string[];
  resources?: Record<string, string>;
  accent: string; // colour of its nodes and palette entry
}

// The palette's one line on a template, in the chosen language.
export const templateBlurb = (name: TemplateName, t: T = tr) => t(`ed.blurb.${name}`);

export const kTemplates: TemplateInfo[] = [
  {
    name: 'container',
    label: 'Container',
    distributed: false,
    image: 'registry.local/app:1',
    resources: { cpu: '1', memory: '2Gi' },
    accent: '#64748b',
  },
  {
    name: 'pytorchjob',
    label: 'PyTorch',
    distributed: true,
    replicas: { master: 1, worker: 1 },
    image: 'registry.local/pytorch:2',
    command: ['torchrun', 'train.py'],
    resources: { cpu: '8', memory: '64Gi', gpu: '1' },
    accent: '#ee4c2c',
  },
  {
    name: 'tfjob',
    label: 'TensorFlow',
    distributed: true,
    replicas: { chief: 1, worker: 2 },
    image: 'registry.local/tensorflow:2',
    command: ['python', 'train.py'],
    resources: { cpu: '8', memory: '32Gi', gpu: '1' },
    accent: '#ff8f00',
  },
  {
    name: 'mpijob',
    label: 'MPI / Horovod',
    distributed: true,
    replicas: { launcher: 1, worker: 2 },
    image: 'registry.local/horovod:0.28',
    command: ['horovodrun', 'python', 'train.py'],
    resources: { cpu: '8', memory: '32Gi', gpu: '1' },
    accent: '#0ea5e9',
  },
  {
    name: 'xgboostjob',
    label: 'XGBoost',
    distributed: true,
    replicas: { master: 1, worker: 2 },
    image: 'registry.local/xgboost:2',
    command: ['python', 'train.py'],
    resources: { cpu: '4', memory: '16Gi' },
    accent: '#16a34a',
  },
  {
    name: 'rayjob',
    label: 'Ray',
    distributed: true,
    replicas: { head: 1, worker: 2 },
    image: 'registry.local/ray:2',
    command: ['python', 'job.py'],
    resources: { cpu: '4', memory: '16Gi' },
    accent: '#2563eb',
  },
  {
    name: 'sparkjob',
    label: 'Spark',
    distributed: true,
    replicas: { driver: 1, executor: 2 },
    image: 'registry.local/spark:3.5',
    command: ['spark-submit', 'job.py'],
    resources: { cpu: '2', memory: '8Gi' },
    accent: '#e25a1c',
  },
];

export function templateInfo(name: unknown): TemplateInfo {
  return kTemplates.find((t) => t.name === name) ?? kTemplates[0];
}

export const kTriggerRules = [
  { value: 'all_success', help: 'every upstream succeeded (or was skipped)' },
  { value: 'all_failed', help: 'every upstream failed or upstream_failed' },
  { value: 'all_done', help: 'every upstream finished, whatever the outcome' },
  { value: 'one_success', help: 'at least one upstream succeeded; may start before the others finish' },
  { value: 'one_failed', help: 'at least one upstream failed; may start before the others finish' },
  { value: 'none_failed', help: 'no upstream failed or upstream_failed (skipped is fine)' },
  { value: 'always', help: 'no dependency at all: starts with the run, whatever upstream does' },
] as const;

export const kRetryPolicies = [
  { value: 'OnFailure', help: 'the attempt failed or timed out' },
  { value: 'OnError', help: 'infrastructure: node lost, evicted' },
  { value: 'Always', help: 'any unsuccessful attempt' },
] as const;

export const kConcurrencyPolicies = [
  { value: 'Allow', help: 'runs may overlap up to maxActiveRuns' },
  { value: 'Forbid', help: 'a tick that finds a run in flight is recorded as skipped' },
  { value: 'Replace', help: 'a tick that finds a run in flight kills it and starts' },
] as const;

export const kSemantics = [
  { value: 'trigger', help: 'due at the tick itself (cube-studio, Argo CronWorkflow)' },
  { value: 'interval', help: 'due when [tick, next tick) has ended (Airflow data interval)' },
] as const;

// GPU types of engine/cluster/gpu_type.cpp (GpuCatalog::with_defaults).
export const kGpuTypes = ['A100-80G', 'H100-80G', 'H800', 'A10', 'T4', 'V100', 'L40S'];

// Defaults of pipeline_spec.hpp, shown as placeholders where a field is absent.
export const kDefaults = {
  namespace: 'default',
  timezone: 'UTC',
  semantics: 'trigger',
  catchup: true,
  maxMissedRuns: 100,
  maxActiveRuns: 1,
  concurrencyPolicy: 'Allow',
  keepLatest: 0,
  parallelism: 0,
  triggerRule: 'all_success',
  poolSlots: 1,
  priority: 0,
  retryLimit: 0,
  retryPolicy: 'OnFailure',
  retryDelay: '10s',
  retryFactor: 2,
  retryCap: '5m',
  simulateDuration: '1m',
} as const;

// Canonical key order of each map, so a field added from a panel lands where a person would
// write it (the loader does not care about order).
const kTopOrder = ['apiVersion', 'kind', 'metadata', 'spec'];
const kMetadataOrder = ['name', 'namespace', 'description', 'labels'];
const kSpecOrder = ['schedule', 'concurrency', 'dependsOnPast', 'parallelism', 'timeout', 'env', 'tasks'];
const kScheduleOrder = ['cron', 'timezone', 'start', 'end', 'semantics', 'catchup', 'startingDeadline', 'maxMissedRuns'];
const kConcurrencyOrder = ['maxActiveRuns', 'policy', 'keepLatest'];
export const kTaskOrder = [
  'name',
  'template',
  'image',
  'command',
  'replicas',
  'resources',
  'dependsOn',
  'triggerRule',
  'dependsOnPast',
  'pool',
  'poolSlots',
  'priority',
  'timeout',
  'retry',
  'skip',
  'autosize',
  'simulate',
];
const kResourcesOrder = ['cpu', 'memory', 'gpu', 'gpuType'];
const kRetryOrder = ['limit', 'policy', 'delay', 'factor', 'cap', 'maxDuration'];
const kSimulateOrder = ['duration', 'outcomes', 'failureProbability', 'used'];
const kPoolSpecOrder = ['slots', 'maxWait'];

export function keyOrder(path: readonly (string | number)[]): readonly string[] | undefined {
  const p = path.map((x) => (typeof x === 'number' ? '#' : x)).join('.');
  switch (p) {
    case '':
      return kTopOrder;
    case 'metadata':
      return kMetadataOrder;
    case 'spec':
      return [...kSpecOrder, ...kPoolSpecOrder];
    case 'spec.schedule':
      return kScheduleOrder;
    case 'spec.concurrency':
      return kConcurrencyOrder;
    case 'spec.tasks.#':
      return kTaskOrder;
    case 'spec.tasks.#.resources':
      return kResourcesOrder;
    case 'spec.tasks.#.retry':
      return kRetryOrder;
    case 'spec.tasks.#.simulate':
      return kSimulateOrder;
    default:
      return undefined;
  }
}

// ---- client-side checks (instant feedback; the server's dry run is the authority) ----

const kDuration = /^(?:\d+(?:\.\d+)?d)?(?:\d+(?:\.\d+)?h)?(?:\d+(?:\.\d+)?m)?(?:\d+(?:\.\d+)?s)?(?:\d+(?:\.\d+)?ms)?(?:\d+(?:\.\d+)?us)?$/;

export function checkDuration(text: string, positive = true): string | null {
  if (!text || !kDuration.test(text)) return 'expected a duration with units such as 90s, 15m, 1h30m or 2h';
  if (positive && /^(0+(\.0+)?[a-z]+)+$/.test(text)) return 'expected a duration greater than zero';
  return null;
}

export function checkCpu(text: string): string | null {
  return /^\d+(\.\d{1,3})?$|^\d+m$/.test(text) ? null : 'expected CPUs such as 2, 0.5 or 500m';
}

export function checkMemory(text: string): string | null {
  return /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|KiB|MiB|GiB|TiB|PiB|k|K|M|G|T|P|kB|KB|MB|GB|TB|PB|B)?$/.test(text)
    ? null
    : 'expected a size such as 8Gi, 512Mi or 2G';
}

export function checkGpu(text: string): string | null {
  const m = /^(\d+)(?:\.(\d{1,3}))?$/.exec(text);
  if (!m) return 'expected a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5';
  const value = Number(text);
  if (value > 1 && !Number.isInteger(value)) return 'a share is of one GPU; ask for whole GPUs above 1';
  if (value > 64) return 'at most 64 GPUs per pod';
  return null;
}

// The "Whole GPUs" field while it is typed in: the count to put in the task ("2" for "2" or
// " 02 "), or null when the text is not one yet (empty after a Backspace, "0", "1.5", "65"): the
// field then keeps the text, and the task its GPUs, until a valid count or the field is left.
export function wholeGpuCount(text: string): string | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= 64 ? String(n) : null;
}

// The same for "Share of one": a share above 0 and below 1 with at most three decimals.
export function gpuShare(text: string): string | null {
  const t = text.trim();
  if (!/^0?\.\d{1,3}$/.test(t)) return null;
  const n = Number(t);
  return n > 0 && n < 1 ? String(n) : null;
}

export function checkTaskName(text: string): string | null {
  return /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/.test(text)
    ? null
    : "expected at most 63 letters, digits, '-' and '_', starting and ending with a letter or digit";
}

export function checkPipelineName(text: string): string | null {
  if (!/^[a-z][a-z0-9-]*[a-z0-9]$/.test(text))
    return "expected lower-case letters, digits and '-', starting with a letter and ending with a letter or digit";
  if (text.length > 54) return 'a pipeline name is at most 54 characters long';
  return null;
}

export function checkNamespace(text: string): string | null {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(text)
    ? null
    : "expected at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit";
}

export function checkRfc3339(text: string): string | null {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text))
    ? null
    : 'expected an RFC 3339 time such as 2026-10-01T00:00:00Z';
}
