import { useState } from 'react';
import type { LocatedError } from '../model/errors';
import { messagesFor } from '../model/errors';
import { checkCpu, checkDuration, checkGpu, checkMemory, checkTaskName, gpuShare, kDefaults, kGpuTypes, kRetryPolicies, kTemplates, kTriggerRules, templateBlurb, templateInfo, wholeGpuCount } from '../model/spec';
import type { TemplateName } from '../model/spec';
import { isPlainObject, setIn } from '../model/util';
import { IconPlus, IconTrash } from '../components/icons';
import { t as tr, tNodes } from '../i18n';
import { BoolField, IntField, LinesField, SelectField, TextField } from './fields';
import { templateAbbrev } from './TaskNode';

type Task = Record<string, unknown>;

export interface Upstream {
  name: string;
  index: number; // in dependsOn
  dangling: boolean;
}

export function TaskPanel({
  task,
  errors,
  upstream,
  pools,
  onChange,
  onDelete,
  onRemoveUpstream,
}: {
  task: Task;
  errors: LocatedError[] | undefined;
  upstream: Upstream[];
  pools: string[];
  onChange: (task: Task) => void;
  onDelete: () => void;
  onRemoveUpstream: (index: number) => void;
}) {
  const msgs = (field: string) => messagesFor(errors, field);
  const set = (path: string[], value: unknown) => onChange(setIn(task, path, value));
  const template = String(task.template ?? 'container');
  const tpl = templateInfo(template);
  const resources = isPlainObject(task.resources) ? task.resources : {};
  const retry = isPlainObject(task.retry) ? task.retry : {};
  const simulate = isPlainObject(task.simulate) ? task.simulate : {};

  const changeTemplate = (t: TemplateName | undefined) => {
    const info = templateInfo(t ?? 'container');
    let next = setIn(task, ['template'], t === 'container' ? undefined : t);
    // The loader requires replicas for distributed templates and refuses them for container.
    if (info.distributed && !isPlainObject(task.replicas)) next = setIn(next, ['replicas'], { ...info.replicas });
    if (!info.distributed) next = setIn(next, ['replicas'], undefined);
    onChange(next);
  };

  return (
    <div data-testid="task-panel">
      <div className="side-head">
        <div className="tpl-icon" style={{ background: tpl.accent }}>
          {templateAbbrev(tpl.name)}
        </div>
        <div style={{ minWidth: 0 }}>
          <div style={{ fontWeight: 650, overflow: 'hidden', textOverflow: 'ellipsis' }}>{String(task.name ?? '')}</div>
          <div className="small muted">{tr('editor.taskOf', { template: tpl.label })}</div>
        </div>
        <button className="btn sm ghost danger" style={{ marginLeft: 'auto' }} onClick={onDelete} title={tr('editor.delete-task-del')}>
          <IconTrash /> {tr('editor.delete')}
        </button>
      </div>

      <section>
        <h3>{tr('editor.task')}</h3>
        <TextField label={tr('editor.name')} value={task.name} check={checkTaskName} errors={msgs('name')} onChange={(v) => set(['name'], v ?? '')} testId="task-name" />
        <SelectField<TemplateName>
          label={tr('editor.template')}
          value={task.template}
          defaultLabel={tr('editor.default', { value: 'container' })}
          options={kTemplates.filter((t) => t.name !== 'container').map((t) => ({ value: t.name, label: `${t.name} — ${t.label}`, help: templateBlurb(t.name) }))}
          errors={msgs('template')}
          onChange={changeTemplate}
          testId="task-template"
        />
        <TextField label={tr('editor.image')} value={task.image} mono placeholder="registry.local/app:1" errors={msgs('image')} onChange={(v) => set(['image'], v)} testId="task-image" />
        <LinesField label={tr('editor.command')} hint={tr('editor.one-argument-per-line-empty-the-image-s-entrypoi')} value={task.command} errors={msgs('command')} onChange={(v) => set(['command'], v)} placeholder={'python\ntrain.py'} testId="task-command" />
      </section>

      {(tpl.distributed || task.replicas !== undefined) && (
        <section>
          <h3>{tr('editor.replicas')}</h3>
          <ReplicasEditor value={task.replicas} defaults={tpl.replicas ?? { worker: 1 }} errors={msgs('replicas')} onChange={(v) => set(['replicas'], v)} />
        </section>
      )}

      <section>
        <h3>{tr('editor.resources')}</h3>
        <div className="fields-2">
          <TextField label="CPU" value={resources.cpu} check={checkCpu} placeholder={tr('editor.none-requested')} errors={msgs('resources.cpu')} onChange={(v) => set(['resources', 'cpu'], v)} testId="task-cpu" />
          <TextField label={tr('editor.memory')} value={resources.memory} check={checkMemory} placeholder={tr('editor.e-g-16gi')} errors={msgs('resources.memory')} onChange={(v) => set(['resources', 'memory'], v)} testId="task-memory" />
        </div>
        <GpuEditor
          gpu={resources.gpu}
          gpuType={resources.gpuType}
          errors={msgs('resources.gpu')}
          typeErrors={msgs('resources.gpuType')}
          onChange={(gpu, gpuType) => {
            let r = setIn(resources, ['gpu'], gpu);
            r = setIn(r, ['gpuType'], gpu === undefined ? undefined : gpuType);
            onChange(setIn(task, ['resources'], Object.keys(r).length ? r : undefined));
          }}
        />
        {msgs('resources').filter((m) => !msgs('resources.cpu').includes(m) && !msgs('resources.memory').includes(m) && !msgs('resources.gpu').includes(m) && !msgs('resources.gpuType').includes(m)).map((m) => (
          <div className="field invalid" key={m}>
            <div className="err">{m}</div>
          </div>
        ))}
      </section>

      <section>
        <h3>{tr('editor.dependencies')}</h3>
        <div className="field">
          <div className="label">{tr('editor.upstream')}</div>
          {upstream.length === 0 ? (
            <div className="hint">{tr('editor.noUpstream')}</div>
          ) : (
            <div className="row" style={{ flexWrap: 'wrap', gap: 6 }}>
              {upstream.map((u) => (
                <span key={u.index} className={`tag ${u.dangling ? 'danger' : 'accent'}`} title={u.dangling ? 'No task has this name' : undefined}>
                  {u.name}
                  <button className="btn sm ghost icon" style={{ height: 18, width: 18, marginLeft: 2 }} onClick={() => onRemoveUpstream(u.index)} aria-label={`Remove dependency on ${u.name}`}>
                    ×
                  </button>
                </span>
              ))}
            </div>
          )}
          {msgs('dependsOn').map((m) => (
            <div className="err" key={m}>
              {m}
            </div>
          ))}
        </div>
        <SelectField label={tr('editor.trigger-rule')} value={task.triggerRule} defaultLabel={tr('editor.default', { value: kDefaults.triggerRule })} options={kTriggerRules} errors={msgs('triggerRule')} onChange={(v) => set(['triggerRule'], v)} testId="task-trigger-rule" />
        <BoolField label={tr('editor.depends-on-past-this-task-of-the-previous-run-mu')} value={task.dependsOnPast} defaultValue={false} errors={msgs('dependsOnPast')} onChange={(v) => set(['dependsOnPast'], v)} />
      </section>

      <section>
        <h3>{tr('editor.scheduling')}</h3>
        <div className="fields-2">
          <TextField label={tr('editor.pool')} value={task.pool} list="gantry-pools" placeholder={tr('editor.no-pool')} errors={msgs('pool')} onChange={(v) => onChange(setIn(setIn(task, ['pool'], v), ['poolSlots'], v === undefined ? undefined : task.poolSlots))} testId="task-pool" />
          <IntField label={tr('editor.pool-slots')} value={task.poolSlots} min={1} placeholder={String(kDefaults.poolSlots)} errors={msgs('poolSlots')} onChange={(v) => set(['poolSlots'], v)} />
        </div>
        <datalist id="gantry-pools">
          {pools.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <IntField label={tr('editor.priority')} value={task.priority} placeholder="0" hint={tr('editor.higher-runs-first-when-tasks-compete-for-a-pool')} errors={msgs('priority')} onChange={(v) => set(['priority'], v)} testId="task-priority" />
      </section>

      <section>
        <h3>{tr('editor.retries-and-timeout')}</h3>
        <div className="fields-2">
          <TextField label={tr('editor.attempt-timeout')} value={task.timeout} check={(v) => checkDuration(v)} placeholder={tr('editor.none')} errors={msgs('timeout')} onChange={(v) => set(['timeout'], v)} testId="task-timeout" />
          <IntField label={tr('editor.retries')} value={retry.limit} min={0} max={10000} placeholder="0" errors={msgs('retry.limit')} onChange={(v) => set(['retry', 'limit'], v)} testId="task-retries" />
        </div>
        <SelectField label={tr('editor.retry-on')} value={retry.policy} defaultLabel={tr('editor.default', { value: kDefaults.retryPolicy })} options={kRetryPolicies} errors={msgs('retry.policy')} onChange={(v) => set(['retry', 'policy'], v)} />
        <div className="fields-3">
          <TextField label={tr('editor.first-delay')} value={retry.delay} check={(v) => checkDuration(v, false)} placeholder={kDefaults.retryDelay} errors={msgs('retry.delay')} onChange={(v) => set(['retry', 'delay'], v)} />
          <TextField label={tr('editor.factor')} value={retry.factor} placeholder={String(kDefaults.retryFactor)} errors={msgs('retry.factor')} onChange={(v) => set(['retry', 'factor'], v === undefined ? undefined : Number.isFinite(Number(v)) ? Number(v) : v)} />
          <TextField label={tr('editor.cap')} value={retry.cap} check={(v) => checkDuration(v, false)} placeholder={kDefaults.retryCap} errors={msgs('retry.cap')} onChange={(v) => set(['retry', 'cap'], v)} />
        </div>
        <TextField label={tr('editor.give-up-after')} value={retry.maxDuration} check={(v) => checkDuration(v)} placeholder={tr('editor.never')} hint={tr('editor.no-retry-starts-later-than-the-first-start-plus-')} errors={msgs('retry.maxDuration')} onChange={(v) => set(['retry', 'maxDuration'], v)} />
        <div className="hint" style={{ marginTop: -6, marginBottom: 12 }}>
          {tNodes('editor.backoff', { sup: <sup>k−1</sup> })}
        </div>
      </section>

      <section>
        <h3>{tr('editor.other')}</h3>
        <BoolField label={tr('editor.skip-the-task-is-marked-skipped-when-it-would-st')} value={task.skip} defaultValue={false} errors={msgs('skip')} onChange={(v) => set(['skip'], v)} />
        <BoolField label={tr('editor.autosize-cpu-and-memory-from-past-runs')} value={task.autosize} defaultValue={false} errors={msgs('autosize')} onChange={(v) => set(['autosize'], v)} />
        <TextField
          label={tr('editor.simulated-duration')}
          value={isPlainObject(simulate.duration) ? undefined : simulate.duration}
          check={(v) => checkDuration(v, false)}
          placeholder={isPlainObject(simulate.duration) ? 'a distribution (edit in YAML)' : kDefaults.simulateDuration}
          hint={tr('editor.how-long-an-attempt-takes-in-the-simulated-world')}
          errors={msgs('simulate')}
          onChange={(v) => onChange(setIn(task, ['simulate'], Object.keys(setIn(simulate, ['duration'], v)).length ? setIn(simulate, ['duration'], v) : undefined))}
        />
      </section>
    </div>
  );
}

function ReplicasEditor({ value, defaults, errors, onChange }: { value: unknown; defaults: Record<string, number>; errors: string[]; onChange: (v: Record<string, number> | undefined) => void }) {
  const roles = isPlainObject(value) ? Object.entries(value) : [];
  const [newRole, setNewRole] = useState('');
  const update = (entries: [string, unknown][]) => onChange(entries.length ? (Object.fromEntries(entries) as Record<string, number>) : undefined);
  return (
    <div className={`field ${errors.length ? 'invalid' : ''}`} data-field="replicas">
      {roles.length === 0 && (
        <button className="btn sm" onClick={() => onChange({ ...defaults })}>
          {tr('editor.addRoles')}
        </button>
      )}
      {roles.map(([role, n], i) => (
        <div className="kv" key={role}>
          <input className="input" value={role} readOnly aria-label={tr('editor.role')} />
          <input
            className="input"
            inputMode="numeric"
            value={String(n)}
            aria-label={`${role} count`}
            onChange={(e) => {
              const v = Number(e.target.value);
              const next = roles.slice();
              next[i] = [role, Number.isInteger(v) && v >= 1 ? v : e.target.value];
              update(next);
            }}
          />
          <button className="btn sm ghost icon" onClick={() => update(roles.filter((_, j) => j !== i))} aria-label={`Remove role ${role}`}>
            <IconTrash />
          </button>
        </div>
      ))}
      <div className="kv">
        <input className="input" value={newRole} placeholder={tr('editor.new-role-e-g-ps')} onChange={(e) => setNewRole(e.target.value.trim())} />
        <span />
        <button
          className="btn sm icon"
          disabled={!newRole || roles.some(([r]) => r === newRole)}
          onClick={() => {
            update([...roles, [newRole, 1]]);
            setNewRole('');
          }}
          aria-label={tr('editor.add-role')}
        >
          <IconPlus />
        </button>
      </div>
      {errors.map((e) => (
        <div className="err" key={e}>
          {e}
        </div>
      ))}
      <div className="hint">{tr('editor.rolesHint')}</div>
    </div>
  );
}

const kShares = ['0.1', '0.125', '0.2', '0.25', '0.3', '0.4', '0.5', '0.6', '0.7', '0.75', '0.8', '0.9'];

// A field whose text goes into the task only when `parse` accepts it: while it is typed in,
// an unfinished text (empty after Backspace) stays in the field and the task keeps its value;
// leaving the field with such a text puts the task's value back.
function DraftInput({ value, parse, onCommit, invalidHint, ...rest }: { value: string; parse: (text: string) => string | null; onCommit: (v: string) => void; invalidHint: string } & Omit<React.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  const [draft, setDraft] = useState<string | null>(null);
  const shown = draft ?? value;
  const bad = draft !== null && parse(draft) === null;
  return (
    <input
      {...rest}
      value={shown}
      aria-invalid={bad || undefined}
      title={bad ? `Expected ${invalidHint}; leaving the field keeps ${value}` : rest.title}
      onChange={(e) => {
        const text = e.target.value;
        const v = parse(text);
        if (v !== null && v !== value) onCommit(v);
        setDraft(v !== null && v === text ? null : text);
      }}
      onBlur={(e) => {
        setDraft(null);
        rest.onBlur?.(e);
      }}
    />
  );
}

function GpuEditor({ gpu, gpuType, errors, typeErrors, onChange }: { gpu: unknown; gpuType: unknown; errors: string[]; typeErrors: string[]; onChange: (gpu: string | undefined, type: string | undefined) => void }) {
  const value = gpu === undefined ? undefined : String(gpu);
  const mode: 'none' | 'share' | 'whole' = value === undefined || Number(value) === 0 ? 'none' : Number(value) < 1 ? 'share' : 'whole';
  const type = gpuType === undefined ? undefined : String(gpuType);
  const local = value ? checkGpu(value) : null;
  return (
    <div className={`field ${errors.length || local ? 'invalid' : ''}`} data-field="gpu">
      <div className="label">GPU</div>
      <div className="segmented" role="radiogroup" aria-label={tr('editor.gpu-request')}>
        <button className={mode === 'none' ? 'on' : ''} onClick={() => onChange(undefined, undefined)} role="radio" aria-checked={mode === 'none'}>
          {tr('editor.gpuNone')}
        </button>
        <button className={mode === 'share' ? 'on' : ''} onClick={() => mode !== 'share' && onChange('0.5', type)} role="radio" aria-checked={mode === 'share'} data-testid="gpu-share">
          {tr('editor.gpuShareOf')}
        </button>
        <button className={mode === 'whole' ? 'on' : ''} onClick={() => mode !== 'whole' && onChange('1', type)} role="radio" aria-checked={mode === 'whole'} data-testid="gpu-whole">
          {tr('editor.gpuWhole')}
        </button>
      </div>
      {mode === 'share' && (
        <div className="row" style={{ marginTop: 8 }}>
          <input
            type="range"
            min={0}
            max={kShares.length - 1}
            step={1}
            value={Math.max(0, kShares.indexOf(value!))}
            onChange={(e) => onChange(kShares[Number(e.target.value)], type)}
            style={{ flex: 1, accentColor: 'var(--accent)' }}
            aria-label={tr('editor.gpu-share')}
          />
          <DraftInput className="input" style={{ width: 72 }} value={value!} parse={gpuShare} onCommit={(v) => onChange(v, type)} invalidHint="a share above 0 and below 1, such as 0.25" aria-label={tr('editor.gpu-share-value')} />
        </div>
      )}
      {mode === 'whole' && (
        <div className="row" style={{ marginTop: 8 }}>
          <DraftInput className="input" style={{ width: 90 }} inputMode="numeric" value={value!} parse={wholeGpuCount} onCommit={(v) => onChange(v, type)} invalidHint="a whole number of GPUs from 1 to 64" aria-label={tr('editor.whole-gpus')} data-testid="gpu-count" />
          <span className="muted small">GPUs per pod (at most 64)</span>
        </div>
      )}
      {local && !errors.length && <div className="err">{local}</div>}
      {errors.map((e) => (
        <div className="err" key={e}>
          {e}
        </div>
      ))}
      {mode !== 'none' && (
        <div className={`field ${typeErrors.length ? 'invalid' : ''}`} style={{ marginTop: 10, marginBottom: 0 }}>
          <label>GPU type</label>
          <input list="gantry-gpu-types" value={type ?? ''} placeholder={tr('editor.any-type')} onChange={(e) => onChange(value, e.target.value || undefined)} data-testid="gpu-type" />
          <datalist id="gantry-gpu-types">
            {kGpuTypes.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          {typeErrors.map((e) => (
            <div className="err" key={e}>
              {e}
            </div>
          ))}
        </div>
      )}
      {mode === 'share' && <div className="hint">{tr('editor.sharedHint')}</div>}
    </div>
  );
}
