import { memo } from 'react';
import { Handle, Position } from '@xyflow/react';
import type { Node, NodeProps } from '@xyflow/react';
import { templateInfo } from '../model/spec';
import { isPlainObject } from '../model/util';
import { t as tr, useT } from '../i18n';

export interface TaskNodeData extends Record<string, unknown> {
  task: Record<string, unknown>;
  errors: number;
  warnings: number; // the dry run's warnings on this task (amber)
  onCycle: boolean;
  direction: 'LR' | 'TB';
}
export type TaskFlowNode = Node<TaskNodeData, 'task'>;

export function templateAbbrev(name: string): string {
  return ({ container: 'CTR', pytorchjob: 'PT', tfjob: 'TF', mpijob: 'MPI', xgboostjob: 'XGB', rayjob: 'RAY', sparkjob: 'SPK' } as Record<string, string>)[name] ?? name.slice(0, 3).toUpperCase();
}

export function resourceSummary(task: Record<string, unknown>): string[] {
  const r = isPlainObject(task.resources) ? task.resources : {};
  const out: string[] = [];
  if (r.cpu !== undefined) out.push(`${r.cpu} CPU`);
  if (r.memory !== undefined) out.push(String(r.memory));
  if (r.gpu !== undefined && Number(r.gpu) > 0) {
    const n = Number(r.gpu);
    out.push(n < 1 ? `${r.gpu} of a ${r.gpuType ?? 'GPU'}` : `${r.gpu}×${r.gpuType ?? 'GPU'}`);
  }
  return out;
}

export function replicasSummary(task: Record<string, unknown>): string | null {
  if (!isPlainObject(task.replicas)) return null;
  const entries = Object.entries(task.replicas);
  const total = entries.reduce((s, [, n]) => s + (Number(n) || 0), 0);
  return `${total} pod${total === 1 ? '' : 's'}`;
}

function TaskNodeView({ data, selected }: NodeProps<TaskFlowNode>) {
  useT(); // a memoised node: its badges follow the navigation's language switch by themselves
  const { task } = data;
  const tpl = templateInfo(task.template ?? 'container');
  const res = resourceSummary(task);
  const pods = replicasSummary(task);
  const cls = ['task-node', selected ? 'selected' : '', data.errors ? 'has-error' : '', data.onCycle ? 'on-cycle' : '', task.skip === true ? 'skip' : ''].join(' ');
  return (
    <div className={cls} data-task={String(task.name ?? '')} data-errors={data.errors}>
      <Handle type="target" position={data.direction === 'TB' ? Position.Top : Position.Left} className="task-handle" />
      <div className="stripe" style={{ background: tpl.accent }} />
      <div className="body">
        <div className="top">
          <span className="nm" title={String(task.name ?? '')}>
            {String(task.name ?? '(unnamed)')}
          </span>
          {pods && <span className="pods">{pods}</span>}
          <span className="tpl" style={{ background: tpl.accent }}>
            {templateAbbrev(tpl.name)}
          </span>
        </div>
        <div className="img" title={String(task.image ?? '')}>
          {task.image ? String(task.image) : <span style={{ fontStyle: 'italic' }}>no image</span>}
        </div>
        <div className="res" title={res.join(' · ')}>
          {res.length ? res.join(' · ') : <span className="muted">no resources requested</span>}
        </div>
      </div>
      {data.errors > 0 && <div className="errs" title={tr('node.problems', { count: data.errors })}>{data.errors}</div>}
      {data.errors === 0 && data.warnings > 0 && (
        <div className="errs warns" title={tr('node.warnings', { count: data.warnings })} data-warnings={data.warnings}>
          !
        </div>
      )}
      <Handle type="source" position={data.direction === 'TB' ? Position.Bottom : Position.Right} className="task-handle" />
    </div>
  );
}

export const TaskNode = memo(TaskNodeView);
