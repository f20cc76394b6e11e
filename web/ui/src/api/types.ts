// The shapes of web/API.md (the REST contract of `gantry serve`), as the app reads them.

export type RunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'killed' | 'skipped' | 'expired';
export type TaskState = 'pending' | 'ready' | 'running' | 'succeeded' | 'failed' | 'upstream_failed' | 'skipped' | 'killed';
export type AttemptState = 'queued' | 'running' | 'succeeded' | 'failed' | 'error' | 'timeout' | 'killed' | 'lost';
export type Trigger = 'schedule' | 'catchup' | 'manual' | 'backfill';

export interface PipelineSummary {
  name: string;
  namespace: string;
  paused: boolean;
  schedule: { cron: string; timezone: string } | null;
  nextTicks: string[];
  tasks: number;
  lastRun: { logicalTime: string; state: RunState } | null;
  runsInFlight: number;
  // metadata.labels-like grouping and the team or person answerable for it (#26 §6); optional:
  // a server that does not send them has no tag or owner filter.
  tags?: string[];
  owner?: string;
  // In the answer to POST /pipelines (dry run too): what switching its schedule on now would
  // start at once (web/API.md).
  catchUp?: CatchUp;
}

export interface CatchUp {
  runs: number;
  missedTicks: number;
  catchup: boolean;
  first: string | null;
  last: string | null;
}

export interface PipelineDetail extends PipelineSummary {
  yaml: string;
  spec: unknown;
}

export interface Attempt {
  start: string; // when it was asked for
  running?: string; // when its work started, when later than start (a gang waiting for GPUs)
  end: string | null;
  state: AttemptState;
  reason?: string;
}

export interface RunTask {
  name: string;
  state: TaskState;
  attempts: Attempt[];
}

export interface Run {
  pipeline: string;
  logicalTime: string;
  trigger: Trigger;
  state: RunState;
  start: string | null;
  end: string | null;
  tasks?: RunTask[]; // absent in `run` events
  params?: Record<string, string | number | boolean>; // a run of a pipeline with spec.params
}

export interface Pool {
  name: string;
  slots: number;
  inUse: number;
  waiting: number;
  maxWait: string | null;
}

// A workload holding (part of) a GPU: a pipeline task's gang by pipeline, task, run and
// attempt; the scenario's own jobs by name alone (web/API.md, GET /cluster).
export interface GpuHolder {
  workload: number;
  pod: number;
  milli: number;
  name: string;
  pipeline: string | null;
  task: string | null;
  logicalTime: string | null;
  attempt: number | string | null;
}

export interface GpuSlot {
  index: number;
  allocatedMilli: number;
  holders?: GpuHolder[];
}

export interface ClusterNode {
  name: string;
  rack: string;
  gpuType: string | null;
  cordoned: boolean;
  ready: boolean;
  cpu: { capacityMilli: number; allocatedMilli: number };
  memory: { capacityBytes: number; allocatedBytes: number };
  gpus: GpuSlot[];
}

export interface Cluster {
  gpuTypes: { name: string; count: number }[];
  racks: { name: string; nodes: ClusterNode[] }[];
  totals: { gpus: number; allocatedMilli: number };
}

export interface PendingGang {
  workload: string;
  name: string;
  pipeline: string | null;
  task?: string | null;
  logicalTime?: string | null;
  attempt?: number | string | null;
  pods?: number;
  gpuType?: string | null;
  gpus: number;
  gpuMilli: number;
  since: string;
  reason: string;
}

export interface ScenarioInfo {
  name: string;
  file: string;
  kind: 'Scenario' | 'Experiment';
  description: string;
  // What the what-if form shows as "as in file" (absent from a server that does not say).
  defaults?: { policy?: string; nodes?: number; gpuType?: string; fabric?: string; seed?: number };
  // The placement plugins a Scenario may use, or the policies of an Experiment.
  policies?: string[];
}

export interface Simulation {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  progress: number;
  scenario: string;
  seed: number | null;
  policy: string | null;
  created: string;
  result: SimulationResult | null;
  error: string | null;
  // The request's overrides, echoed by the server.
  overrides?: { nodes?: number; gpuType?: string; fabric?: string };
}

// `gantry simulate --format json` (README, "JSON report"); fragmentation experiments have
// `policies` instead of the job figures.
export interface SimulationResult {
  scenario?: string;
  seed?: number;
  policy?: { placement?: string; queue?: string; queueing?: string };
  cluster?: { nodes: number; gpus: number };
  start?: string;
  end?: string;
  events?: number;
  jobs?: { total: number; finished: number; running_at_end: number; queued_at_end: number };
  wait_s?: Stats;
  jct_s?: Stats;
  gpu?: { allocation_ratio: number; busy_ratio: number };
  fingerprint?: string;
  capacity_gpus?: number;
  policies?: { name: string; unallocated_gpu_pct_mean?: number[]; arrival_pct?: number[] }[];
  // Inference services of the scenario (absent or empty when it has none); a scenario of
  // services alone has no jobs (its job figures are zeros).
  services?: ServiceResult[];
  [key: string]: unknown;
}

// One inference service of `gantry simulate --format json`: latencies in seconds over the whole
// horizon, `slo_attainment` the share of requests within `slo_p99_s` (null: no SLO).
export interface ServiceResult {
  name: string;
  requests: number;
  p50_s: number;
  p99_s: number;
  slo_attainment: number;
  gpu_hours: number;
  cold_starts: number;
  max_replicas: number;
  slo_p99_s: number | null;
  unserved: number;
  cold_start_p50_s: number | null; // null: no cold start
  predictors: PredictorResult[];
}

export interface PredictorResult {
  name: string;
  traffic_percent: number;
  requests: number;
  p99_s: number;
  cold_starts: number;
  max_replicas: number;
}

export interface Stats {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface SimulationSeries {
  gpuAllocation: [string, number][];
  jctCdf: [number, number][];
  waitCdf: [number, number][];
  services?: ServiceSeries[];
  unallocatedGpuPct: Record<string, [number, number][]>;
}

// One point per report interval (5 min by default), at the interval's start: requests per
// second, p99 latency in seconds (null: nothing served in it), time-averaged replicas ready and
// starting.
export interface ServiceSeries {
  name: string;
  qps: [string, number][];
  p99: [string, number | null][];
  ready: [string, number][];
  starting: [string, number][];
}

export interface ApiErrorBody {
  error?: { code: string; message: string };
  errors?: { file?: string; line?: number; column?: number; path?: string; message: string }[];
  warnings?: { file?: string; line?: number; column?: number; message: string }[];
}

export interface ApplyResult {
  pipelines: PipelineSummary[];
  // Dry run: what is valid but the cluster can never hold (a GPU type no node has, more GPUs
  // than any node or gang could get), by line (web/API.md).
  warnings?: { file?: string; line?: number; column?: number; message: string }[];
  pools: Pool[];
}

// ---- sweeps and capacity plans (web/API.md, "Sweeps and plans") ----

export type StudyKind = 'Sweep' | 'Plan';

// A shipped kind: Sweep or kind: Plan file (GET /sweeps/catalog, GET /plans/catalog).
export interface StudyFile {
  name: string;
  file: string;
  kind: StudyKind;
  description: string;
  error: string | null; // the loader's message when the file cannot run
  base?: string;
  // a sweep
  axes?: string[];
  points?: number;
  seeds?: number;
  runs?: number;
  metrics?: string[];
  // a plan
  pools?: string[];
  growth?: number[];
}

export interface StudyChart {
  name: string; // "wait.p95.svg", "frontier.svg"
  svg: string;
}

// A sweep or plan the server runs (POST /sweeps, POST /plans): `done` of `total` runs (a sweep)
// or forecast steps (a plan); when done, `result` is the CLI's --format json document, `report`
// its text report and `charts` its SVGs.
export interface Study {
  id: string;
  kind: StudyKind;
  name: string;
  file: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number;
  progress: number;
  created: string;
  error: string | null;
  result: Record<string, unknown> | null;
  report: string | null;
  charts: StudyChart[] | null;
}

// ---- distributed sweeps (web/API.md, "Distributed sweeps") ----

// A shard's report of why it failed (`gantry sweep-worker`'s last error, up to 16 KiB).
export interface ShardFailure {
  shard: number;
  at: string | null;
  message: string;
}

// A user's sweep run by the pods of a Kubernetes Indexed Job, coordinated by the server
// (GET /distributed-sweeps, the `distributed-sweep` event). `result`, `report` and `charts`
// only in GET /distributed-sweeps/{id} of a done sweep.
export interface DistributedSweep {
  id: string;
  name: string;
  file: string;
  state: 'running' | 'done' | 'cancelled';
  shards: number;
  runs: { done: number; total: number };
  created: string | null;
  ended: string | null;
  failures: ShardFailure[];
  result: Record<string, unknown> | null;
  report: string | null;
  charts: StudyChart[] | null;
  // GET /distributed-sweeps/{id} of a running sweep: the same result and text report over the
  // runs recorded so far (each point's n is its seeds in so far).
  partial: { result: Record<string, unknown> | null; report: string | null } | null;
}
