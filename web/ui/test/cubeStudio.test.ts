// The cube-studio importer on an export shaped like cube-studio's own (models Pipeline and Task
// of tencentmusic/cube-studio myapp/models/model_job.py; fixture written for this test).
// Every expected value below is worked out by hand from the fixture.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { importCubeStudio, importNoteText, importToYaml, parseCubeGpu, zonedToUtc, formatSeconds, sanitizePipelineName, findExport } from '../src/model/cubeStudio';
import { translate, type T } from '../src/i18n/t';
import { parseBundle } from '../src/model/bundle';
import { toGraph, edgesOf } from '../src/model/graph';
import { checkConnection } from '../src/model/dag';

const en: T = (k, p) => translate('en', k, p);
const zh: T = (k, p) => translate('zh-CN', k, p);
const fixture = readFileSync(new URL('./fixtures/cube-studio-export.json', import.meta.url), 'utf8');

describe('importCubeStudio', () => {
  const result = importCubeStudio(fixture, { now: new Date('2026-10-01T12:00:00Z') });
  const p = result.pipeline as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const tasks = p.spec.tasks as Record<string, unknown>[];
  const task = (n: string) => tasks.find((t) => t.name === n)!;

  it('maps the pipeline: name, description, provenance labels', () => {
    expect(result.pipeline.apiVersion).toBe('gantry.dev/v1');
    expect(result.pipeline.kind).toBe('Pipeline');
    // "bert_finetune_daily": '_' is not allowed in a pipeline name.
    expect(p.metadata).toEqual({
      name: 'bert-finetune-daily',
      namespace: 'pipeline',
      description: 'BERT 每日微调与评估',
      labels: { 'imported-from': 'cube-studio', 'cube-studio-id': '27', 'cube-studio-project': 'public' },
    });
  });

  it('maps the schedule in cube-studio time, without catch-up', () => {
    // cronjob_start_time 2026-09-01 00:00:00 in Asia/Shanghai (UTC+8, no DST) = 2026-08-31 16:00Z.
    expect(p.spec.schedule).toEqual({ cron: '30 1 * * *', timezone: 'Asia/Shanghai', start: '2026-08-31T16:00:00Z', catchup: false });
  });

  it('maps concurrency, dependsOnPast, parallelism and the global env', () => {
    expect(p.spec.concurrency).toEqual({ maxActiveRuns: 3, keepLatest: 1 });
    expect(p.spec.dependsOnPast).toBe(true);
    expect(p.spec.parallelism).toBe(2);
    // "bad key=1" is not a variable name: left out, with a warning.
    expect(p.spec.env).toEqual({ DATA_DATE: "{{ datetime.datetime.now().strftime('%Y%m%d') }}", HF_HOME: '/mnt/admin/hf' });
    expect(result.notes.some((n) => n.level === 'warning' && importNoteText(n, en).includes('"bad key"'))).toBe(true);
  });

  it('keeps the DAG order and maps the upstreams', () => {
    expect(tasks.map((t) => t.name)).toEqual(['data-prepare', 'feature_extract', 'bert-train', 'xgb-rank', 'evaluate', 'spark-report']);
    expect(task('data-prepare').dependsOn).toBeUndefined();
    expect(task('feature_extract').dependsOn).toEqual(['data-prepare']);
    expect(task('bert-train').dependsOn).toEqual(['feature_extract']);
    expect(task('xgb-rank').dependsOn).toEqual(['feature_extract']);
    // "deleted-task" is not in the export: dropped, with a warning.
    expect(task('evaluate').dependsOn).toEqual(['bert-train', 'xgb-rank']);
    expect(result.notes.some((n) => n.task === 'evaluate' && importNoteText(n, en).includes('deleted-task'))).toBe(true);
    expect(task('spark-report').dependsOn).toEqual(['evaluate']);
  });

  it('maps a custom-image task to a container with a shell command', () => {
    expect(task('data-prepare')).toEqual({
      name: 'data-prepare',
      image: 'ccr.ccs.tencentyun.com/cube-studio/python:3.9',
      command: ['bash', '-c', 'cd /mnt/admin/bert && python prepare.py --date $DATA_DATE'],
      resources: { cpu: '4', memory: '8G' },
      timeout: '1h', // 3600 s
      retry: { limit: 2 },
    });
  });

  it('maps the distributed templates with their replicas', () => {
    // ray, --num_worker 4: a head and 4 workers; "16G~32G" / "8~16" request the lower bound.
    expect(task('feature_extract')).toEqual({
      name: 'feature_extract',
      template: 'rayjob',
      image: 'ccr.ccs.tencentyun.com/cube-studio/ray:gpu-20240101',
      command: ['bash', '-c', 'cd /mnt/admin/bert && python features.py'],
      replicas: { head: 1, worker: 4 },
      resources: { cpu: '8', memory: '16G' },
      dependsOn: ['data-prepare'],
    });
    // pytorchjob-train, --num_worker 3 = WORLD_SIZE 3: master (rank 0) + 2 workers;
    // "8(A100)" = 8 whole GPUs of the catalogue's A100-80G; 14400 s = 4 h.
    expect(task('bert-train')).toEqual({
      name: 'bert-train',
      template: 'pytorchjob',
      image: 'ccr.ccs.tencentyun.com/cube-studio/ubuntu-gpu:cuda11.8.0-cudnn8-python3.9',
      command: ['bash', '-c', 'cd /mnt/admin/bert && torchrun --nproc_per_node=8 train.py'],
      replicas: { master: 1, worker: 2 },
      resources: { cpu: '32', memory: '128G', gpu: '8', gpuType: 'A100-80G' },
      dependsOn: ['feature_extract'],
      timeout: '4h',
      retry: { limit: 1 },
    });
    // "xgb-train" named as a string; a GPU share of 0.5; 5400 s = 1 h 30 m.
    expect(task('xgb-rank')).toMatchObject({
      template: 'xgboostjob',
      replicas: { master: 1, worker: 2 },
      resources: { cpu: '8', memory: '16G', gpu: '0.5' },
      timeout: '1h30m',
    });
    expect(task('xgb-rank').retry).toBeUndefined();
    // spark: no --command: the application (--code_file) is submitted; the template's other
    // parameters are the operator's settings, listed in a note, not the command; skip kept.
    expect(task('spark-report')).toEqual({
      name: 'spark-report',
      template: 'sparkjob',
      image: 'ccr.ccs.tencentyun.com/cube-studio/spark-operator:spark-v3.1.1',
      command: ['spark-submit', 'local:///opt/spark/report.py'],
      replicas: { driver: 1, executor: 3 },
      resources: { cpu: '4', memory: '8G' },
      dependsOn: ['evaluate'],
      skip: true,
    });
  });

  it("says which Spark parameters it left out of the command", () => {
    const text = result.notes.map((n) => `${n.task ?? ''}: ${importNoteText(n, en)}`).join('\n');
    expect(text).toContain('spark-report: template parameters with no Gantry field, left out (not the command): --code_type Python');
  });

  it('does not import a task that deploys an inference service, and says so', () => {
    const r = importCubeStudio({
      pipeline: { name: 'train-and-serve', dag_json: { train: { upstream: [] }, serve: { upstream: ['train'] }, notify: { upstream: ['serve'] } } },
      tasks: [
        { name: 'train', job_template: 'pytorchjob', args: '{"--image": "r/train:1", "--command": "python train.py"}' },
        { name: 'serve', job_template: { name: 'deploy-service' }, args: '{"--image": "r/serve:1", "--command": "python launcher.py"}' },
        { name: 'notify', job_template: 'python', args: '{"--image": "r/notify:1", "--command": "python notify.py"}' },
      ],
    });
    const spec = r.pipeline.spec as { tasks: { name: string; dependsOn?: string[] }[] };
    expect(spec.tasks.map((t) => t.name)).toEqual(['train', 'notify']);
    expect(spec.tasks[1].dependsOn).toBeUndefined();
    const text = r.notes.map((n) => `${n.task ?? ''}: ${importNoteText(n, en)}`).join('\n');
    expect(text).toContain('serve: job template "deploy-service" deploys an inference service');
    expect(text).toContain('this task was not imported');
    expect(text).toContain('notify: upstream "serve" deploys an inference service, which was not imported; dependency dropped');
  });

  it('reads "1(nvidia,T4)" as one T4', () => {
    expect(task('evaluate').resources).toEqual({ cpu: '2', memory: '4G', gpu: '1', gpuType: 'T4' });
    expect(task('evaluate').command).toEqual(['bash', '-c', 'python eval.py']);
  });

  it('lists what has no Gantry field instead of dropping it silently', () => {
    const text = result.notes.map((n) => `${n.task ?? ''}: ${importNoteText(n, en)}`).join('\n');
    expect(text).toContain('bert-train: resource_rdma "1" has no Gantry field');
    expect(text).toContain('data-prepare: volume_mount');
    expect(text).toContain('pipeline node_selector "cpu=true,train=true"');
    expect(text).toContain('pipeline alert_user "admin"');
  });

  it('takes the node positions of the cube-studio editor', () => {
    expect(result.positions).toEqual({
      'data-prepare': { x: 80, y: 120 },
      feature_extract: { x: 360, y: 120 },
      'bert-train': { x: 640, y: 40 },
      'xgb-rank': { x: 640, y: 220 },
      evaluate: { x: 920, y: 120 },
      'spark-report': { x: 1200, y: 120 },
    });
  });

  it('prints YAML that reads back as the imported pipeline, labels as comments', () => {
    const yaml = importToYaml(result);
    const bundle = parseBundle(yaml);
    expect(bundle.problems).toEqual([]);
    expect(bundle.docs).toHaveLength(1);
    expect(bundle.docs[0].value).toEqual(result.pipeline);
    expect(yaml).toContain('# BERT 分布式训练\n  - name: bert-train');
    expect(yaml).toContain('  schedule:\n    cron: "30 1 * * *"\n    timezone: Asia/Shanghai\n    start: 2026-08-31T16:00:00Z\n    catchup: false\n');
    expect(yaml).toContain('    resources: {cpu: "32", memory: 128G, gpu: "8", gpuType: A100-80G}\n');
    // The imported DAG is a DAG: closing evaluate -> data-prepare would be a cycle.
    const graph = toGraph(bundle.docs[0].value);
    expect(edgesOf(graph)).toHaveLength(6);
    const uid = (n: string) => graph.nodes.find((x) => x.task.name === n)!.uid;
    expect(checkConnection(graph, uid('evaluate'), uid('data-prepare')).ok).toBe(false);
  });
});

describe('cube-studio shapes and values', () => {
  it('accepts a list of exports and a pipeline with its tasks inside', () => {
    const one = JSON.parse(fixture);
    expect(findExport([one]).tasks).toHaveLength(6);
    expect(findExport({ ...one.pipeline, tasks: one.tasks }).pipeline.name).toBe('bert_finetune_daily');
    expect(() => findExport({ pipeline: { name: 'x' }, tasks: [] })).toThrow(/no tasks/);
    expect(() => findExport('not json')).toThrow();
  });

  it('a "once" pipeline has no schedule', () => {
    const one = JSON.parse(fixture);
    one.pipeline.schedule_type = 'once';
    const r = importCubeStudio(one);
    expect((r.pipeline.spec as Record<string, unknown>).schedule).toBeUndefined();
  });

  it('an invalid cron_time gives a manual pipeline and a warning', () => {
    const one = JSON.parse(fixture);
    one.pipeline.cron_time = '1 2 3';
    const r = importCubeStudio(one);
    expect((r.pipeline.spec as Record<string, unknown>).schedule).toBeUndefined();
    expect(r.notes.some((n) => n.level === 'warning' && importNoteText(n, en).startsWith('cron_time "1 2 3"'))).toBe(true);
  });

  it('reads cube-studio GPU requests', () => {
    expect(parseCubeGpu('0')).toEqual({});
    expect(parseCubeGpu('')).toEqual({});
    expect(parseCubeGpu('2')).toEqual({ gpu: '2', gpuType: undefined });
    expect(parseCubeGpu('0.25')).toEqual({ gpu: '0.25', gpuType: undefined });
    expect(parseCubeGpu('1(V100)')).toEqual({ gpu: '1', gpuType: 'V100' });
    expect(parseCubeGpu('4（H100）')).toEqual({ gpu: '4', gpuType: 'H100-80G' });
    expect(parseCubeGpu('1(npu)')).toEqual({ gpu: '1', gpuType: undefined });
    expect(parseCubeGpu('1.5').problem?.key).toBe('importNote.badGpu');
    expect(parseCubeGpu('1.5').problem?.params.problem).toMatch(/whole GPUs above 1/);
    expect(parseCubeGpu('lots').problem).toBeDefined();
  });

  it('converts local times of a zone to UTC, daylight saving included', () => {
    // New York is UTC-5 (EST) before 2026-03-08 02:00 and UTC-4 (EDT) after.
    expect(zonedToUtc('2026-03-07 12:00:00', 'America/New_York')).toBe('2026-03-07T17:00:00Z');
    expect(zonedToUtc('2026-03-09 12:00:00', 'America/New_York')).toBe('2026-03-09T16:00:00Z');
    expect(zonedToUtc('2026-01-01 00:00', 'UTC')).toBe('2026-01-01T00:00:00Z');
    expect(zonedToUtc('tomorrow', 'UTC')).toBeNull();
  });

  it('formats seconds as a YAML duration', () => {
    expect(formatSeconds(45)).toBe('45s');
    expect(formatSeconds(5400)).toBe('1h30m');
    expect(formatSeconds(90061)).toBe('1d1h1m1s');
  });

  it('makes valid pipeline names', () => {
    expect(sanitizePipelineName('My_Pipeline v2')).toBe('my-pipeline-v2');
    expect(sanitizePipelineName('2024-report')).toBe('report');
    expect(sanitizePipelineName('x'.repeat(80))).toHaveLength(54);
  });
});

// The notes are a key and parameters: each reads in the language chosen when it is shown.
describe('the import notes in both languages', () => {
  const notesOf = (r: ReturnType<typeof importCubeStudio>, t: T) => r.notes.map((n) => `${n.task ?? ''}: ${importNoteText(n, t)}`);
  const fromFixture = importCubeStudio(fixture, { now: new Date('2026-10-01T12:00:00Z') });
  const serving = importCubeStudio({
    pipeline: { name: 'train-and-serve', dag_json: { train: { upstream: [] }, serve: { upstream: ['train'] }, notify: { upstream: ['serve', 'gone'] } } },
    tasks: [
      { name: 'train', job_template: 'pytorchjob', args: '{"--image": "r/train:1", "--command": "python train.py"}' },
      { name: 'serve', job_template: { name: 'deploy-service' }, args: '{"--image": "r/serve:1"}' },
      { name: 'notify', job_template: 'python', args: '{"--image": "r/notify:1", "--command": "python notify.py"}' },
    ],
  });

  it("says the Spark template's notes in English and in Chinese", () => {
    // spark-report has --code_file local:///opt/spark/report.py and --code_type Python.
    expect(notesOf(fromFixture, en)).toEqual(expect.arrayContaining([
      'spark-report: Spark application local:///opt/spark/report.py → command spark-submit',
      'spark-report: template parameters with no Gantry field, left out (not the command): --code_type Python',
    ]));
    expect(notesOf(fromFixture, zh)).toEqual(expect.arrayContaining([
      'spark-report: Spark 应用 local:///opt/spark/report.py → 命令 spark-submit',
      'spark-report: 模板参数在 Gantry 中没有对应字段，已略去（不作为命令）：--code_type Python',
    ]));
  });

  it('says a refused serving template and the dependencies dropped in English and in Chinese', () => {
    expect(notesOf(serving, en).filter((l) => !l.includes('→'))).toEqual([
      'serve: job template "deploy-service" deploys an inference service: Gantry runs services in a scenario (kind: Scenario, spec.services, as in scenarios/serving/), not as a pipeline task; this task was not imported',
      'notify: upstream "serve" deploys an inference service, which was not imported; dependency dropped',
      'notify: upstream "gone" is not a task of the export; dependency dropped',
    ]);
    expect(notesOf(serving, zh).filter((l) => !l.includes('→'))).toEqual([
      'serve: 任务模板 "deploy-service" 部署的是推理服务：Gantry 在场景中运行服务（kind: Scenario，spec.services，见 scenarios/serving/），而不是作为流水线任务；此任务未导入',
      'notify: 上游 "serve" 部署的是推理服务，未被导入；已去掉此依赖',
      'notify: 上游 "gone" 不是导出中的任务；已去掉此依赖',
    ]);
  });

  it("says the schedule's and the pipeline fields' notes in English and in Chinese", () => {
    expect(notesOf(fromFixture, en)).toEqual(expect.arrayContaining([
      `: schedule "30 1 * * *" read in Asia/Shanghai (cube-studio runs cron_time in its server's local time); catch-up off so importing does not start a backlog`,
      ': expired_limit 1 → concurrency.keepLatest 1 (older runs in flight expire)',
      ': global_env "bad key" is not an environment variable name; left out',
      'bert-train: resource_rdma "1" has no Gantry field; left out',
    ]));
    expect(notesOf(fromFixture, zh)).toEqual(expect.arrayContaining([
      ': 调度 "30 1 * * *" 按 Asia/Shanghai 时区解读（cube-studio 按其服务器本地时间执行 cron_time）；已关闭补跑，导入不会积压一批运行',
      ': expired_limit 1 → concurrency.keepLatest 1（进行中的较早运行会过期）',
      ': global_env "bad key" 不是合法的环境变量名；已略去',
      'bert-train: resource_rdma "1" 在 Gantry 中没有对应字段；已略去',
    ]));
    // Every note has its words in both languages (no key left as the key).
    for (const n of fromFixture.notes.concat(serving.notes)) {
      expect(importNoteText(n, zh)).not.toBe(n.key);
      expect(importNoteText(n, zh)).not.toBe(importNoteText(n, en));
    }
  });
});
