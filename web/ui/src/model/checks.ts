// Checks made in the browser while the user edits, in the shape of the server's errors (a
// field path and a message), so they show on the same node and field. They cover the common
// mistakes of pipeline_loader.cpp; the server's dry run, which follows each edit, has the last
// word and replaces them once it answers.

import type { ServerError } from './errors';
import { checkCron, checkTimezone } from './cron';
import { toGraph } from './graph';
import { nodesOnCycles } from './dag';
import {
  checkCpu,
  checkDuration,
  checkGpu,
  checkMemory,
  checkNamespace,
  checkPipelineName,
  checkRfc3339,
  checkTaskName,
  kTemplates,
  templateInfo,
} from './spec';
import { isPlainObject } from './util';

export function checkPipeline(value: unknown): ServerError[] {
  const out: ServerError[] = [];
  const add = (path: string, message: string) => out.push({ path, message });
  if (!isPlainObject(value)) return [{ message: 'expected a map with fields apiVersion, kind, metadata, spec' }];
  const md = isPlainObject(value.metadata) ? value.metadata : {};
  if (!md.name) add('metadata.name', 'missing required field "name"');
  else {
    const e = checkPipelineName(String(md.name));
    if (e) add('metadata.name', e);
  }
  if (md.namespace !== undefined) {
    const e = checkNamespace(String(md.namespace));
    if (e) add('metadata.namespace', e);
  }
  const spec = isPlainObject(value.spec) ? value.spec : {};
  const s = spec.schedule;
  if (isPlainObject(s)) {
    if (!s.cron) add('spec.schedule.cron', 'missing required field "cron"');
    else {
      const e = checkCron(String(s.cron));
      if (e) add('spec.schedule.cron', e);
    }
    if (s.timezone !== undefined) {
      const e = checkTimezone(String(s.timezone));
      if (e) add('spec.schedule.timezone', e);
    }
    if (!s.start) add('spec.schedule.start', 'missing required field "start" (the first instant the schedule may fire)');
    else if (checkRfc3339(String(s.start))) add('spec.schedule.start', checkRfc3339(String(s.start))!);
    if (s.end !== undefined && checkRfc3339(String(s.end))) add('spec.schedule.end', checkRfc3339(String(s.end))!);
    if (s.startingDeadline !== undefined && checkDuration(String(s.startingDeadline))) add('spec.schedule.startingDeadline', checkDuration(String(s.startingDeadline))!);
  }
  if (spec.timeout !== undefined && checkDuration(String(spec.timeout))) add('spec.timeout', checkDuration(String(spec.timeout))!);
  const tasks = Array.isArray(spec.tasks) ? spec.tasks : [];
  if (!Array.isArray(spec.tasks)) add('spec.tasks', 'missing required field "tasks"');
  else if (tasks.length === 0) add('spec.tasks', 'a pipeline needs at least one task: drag a template onto the canvas');

  const seen = new Map<string, number>();
  const names = new Set(tasks.map((t) => (isPlainObject(t) ? String(t.name ?? '') : '')));
  tasks.forEach((t, i) => {
    const at = (f: string) => `spec.tasks[${i}]${f ? '.' + f : ''}`;
    if (!isPlainObject(t)) {
      add(at(''), 'expected a map');
      return;
    }
    const name = String(t.name ?? '');
    if (!t.name) add(at('name'), 'missing required field "name"');
    else {
      const e = checkTaskName(name);
      if (e) add(at('name'), e);
      if (seen.has(name)) add(at('name'), `duplicate task name "${name}"`);
      else seen.set(name, i);
    }
    const template = t.template === undefined ? 'container' : String(t.template);
    if (!kTemplates.some((k) => k.name === template)) add(at('template'), `expected one of ${kTemplates.map((k) => k.name).join(', ')}`);
    const distributed = templateInfo(template).distributed && template !== 'container';
    if (distributed && !isPlainObject(t.replicas)) add(at('replicas'), 'missing required field "replicas" (a distributed template needs the count of each role, such as {master: 1, worker: 4})');
    if (!distributed && template === 'container' && t.replicas !== undefined) add(at('replicas'), 'replicas applies to the distributed templates; a container task is one pod');
    if (isPlainObject(t.replicas)) {
      if (Object.keys(t.replicas).length === 0) add(at('replicas'), 'expected at least one role with its count, such as {worker: 4}');
      for (const [role, n] of Object.entries(t.replicas))
        if (!Number.isInteger(n) || (n as number) < 1) add(at(`replicas.${role}`), 'expected an integer from 1 to 10000');
    }
    const r = isPlainObject(t.resources) ? t.resources : {};
    if (r.cpu !== undefined && checkCpu(String(r.cpu))) add(at('resources.cpu'), checkCpu(String(r.cpu))!);
    if (r.memory !== undefined && checkMemory(String(r.memory))) add(at('resources.memory'), checkMemory(String(r.memory))!);
    if (r.gpu !== undefined && checkGpu(String(r.gpu))) add(at('resources.gpu'), checkGpu(String(r.gpu))!);
    if (r.gpuType !== undefined && (r.gpu === undefined || Number(r.gpu) === 0))
      add(at('resources.gpuType'), 'gpuType applies to tasks that request a GPU; add gpu: N or remove gpuType');
    if (t.poolSlots !== undefined && !t.pool) add(at('poolSlots'), 'poolSlots applies to tasks with a pool; add pool: NAME or remove poolSlots');
    if (t.timeout !== undefined && checkDuration(String(t.timeout))) add(at('timeout'), checkDuration(String(t.timeout))!);
    if (isPlainObject(t.retry)) {
      for (const f of ['delay', 'cap'] as const)
        if (t.retry[f] !== undefined && checkDuration(String(t.retry[f]), false)) add(at(`retry.${f}`), checkDuration(String(t.retry[f]), false)!);
      if (t.retry.maxDuration !== undefined && checkDuration(String(t.retry.maxDuration))) add(at('retry.maxDuration'), checkDuration(String(t.retry.maxDuration))!);
      if (t.retry.factor !== undefined && !(Number(t.retry.factor) >= 1)) add(at('retry.factor'), 'the backoff factor must be at least 1 (waits never shrink)');
    }
    const deps = Array.isArray(t.dependsOn) ? t.dependsOn.map(String) : [];
    deps.forEach((d, j) => {
      if (d === name) add(at(`dependsOn[${j}]`), `task "${d}" depends on itself`);
      else if (!names.has(d)) add(at(`dependsOn[${j}]`), `unknown task "${d}"`);
    });
  });

  const graph = toGraph(value);
  const onCycle = nodesOnCycles(graph);
  if (onCycle.size) {
    graph.nodes.forEach((n, i) => {
      if (!onCycle.has(n.uid)) return;
      n.deps.forEach((d, j) => {
        if ('uid' in d && onCycle.has(d.uid) && d.uid !== n.uid) add(`spec.tasks[${i}].dependsOn[${j}]`, 'part of a cycle: a pipeline must be a DAG');
      });
    });
  }
  return out;
}
