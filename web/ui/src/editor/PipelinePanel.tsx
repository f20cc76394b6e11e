import { useMemo, useState } from 'react';
import type { LocatedError } from '../model/errors';
import { messagesFor } from '../model/errors';
import { checkCron, checkTimezone, describeCron, nextTicks } from '../model/cron';
import { serverNow } from '../api/session';
import { checkDuration, checkNamespace, checkPipelineName, checkRfc3339, kConcurrencyPolicies, kDefaults, kSemantics } from '../model/spec';
import { isPlainObject, setIn } from '../model/util';
import { fmtZoned } from '../format';
import { IconPlus, IconTrash } from '../components/icons';
import { t as tr } from '../i18n';
import { BoolField, IntField, SelectField, TextField } from './fields';

type Value = Record<string, unknown>;

const kPresets = [
  { cron: '*/15 * * * *', label: 'Every 15 minutes' },
  { cron: '0 * * * *', label: 'Hourly' },
  { cron: '0 3 * * *', label: 'Daily at 03:00' },
  { cron: '0 9 * * 1-5', label: 'Weekdays at 09:00' },
  { cron: '0 0 * * 0', label: 'Weekly (Sunday 00:00)' },
  { cron: '0 0 1 * *', label: 'Monthly (1st, 00:00)' },
];

let zones: string[] | null = null;
function timeZones(): string[] {
  if (!zones) {
    try {
      zones = (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
    } catch {
      zones = ['UTC', 'Europe/London', 'Europe/Paris', 'America/New_York', 'America/Los_Angeles', 'Asia/Shanghai', 'Asia/Tokyo'];
    }
  }
  return zones;
}

function todayUtc(): string {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString().replace('.000Z', 'Z');
}

export function PipelinePanel({
  value,
  errors,
  serverTicks,
  otherDocs,
  onChange,
}: {
  value: Value;
  errors: LocatedError[];
  serverTicks: string[] | null; // from the last dry run of this very text
  otherDocs: string[];
  onChange: (v: Value) => void;
}) {
  const msgs = (field: string) => messagesFor(errors, field);
  const md = isPlainObject(value.metadata) ? value.metadata : {};
  const spec = isPlainObject(value.spec) ? value.spec : {};
  const schedule = isPlainObject(spec.schedule) ? spec.schedule : null;
  const concurrency = isPlainObject(spec.concurrency) ? spec.concurrency : {};
  const set = (path: string[], v: unknown) => onChange(setIn(value, path, v));
  const setSpec = (path: string[], v: unknown) => set(['spec', ...path], v);
  const zone = schedule?.timezone ? String(schedule.timezone) : 'UTC';

  const client = useMemo(() => {
    if (!schedule?.cron) return null;
    // From the server's now (a server at --speed 60 is ahead of the browser's clock).
    return nextTicks(String(schedule.cron), zone, { from: new Date(serverNow()), start: schedule.start ? String(schedule.start) : undefined, end: schedule.end ? String(schedule.end) : undefined });
  }, [schedule?.cron, zone, schedule?.start, schedule?.end]);
  const ticks = serverTicks ? serverTicks.map((t) => new Date(t)) : (client?.ticks ?? []);

  return (
    <div data-testid="pipeline-panel">
      <div className="side-head">
        <div className="tpl-icon" style={{ background: 'var(--accent)' }}>
          P
        </div>
        <div>
          <div style={{ fontWeight: 650 }}>{String(md.name ?? 'pipeline')}</div>
          <div className="small muted">{tr('editor.pipelineSettings')}</div>
        </div>
      </div>

      <section>
        <h3>{tr('editor.pipeline')}</h3>
        <TextField label={tr('editor.name')} value={md.name} check={checkPipelineName} errors={msgs('metadata.name')} onChange={(v) => set(['metadata', 'name'], v ?? '')} testId="pipeline-name" />
        <TextField label={tr('editor.namespace')} value={md.namespace} check={checkNamespace} placeholder={kDefaults.namespace} errors={msgs('metadata.namespace')} onChange={(v) => set(['metadata', 'namespace'], v)} />
        <TextField label={tr('editor.description')} value={md.description} placeholder={tr('editor.what-this-pipeline-is-for')} errors={msgs('metadata.description')} onChange={(v) => set(['metadata', 'description'], v)} />
      </section>

      <section>
        <h3>{tr('editor.schedule')}</h3>
        <div className="segmented" style={{ marginBottom: 12 }} role="radiogroup" aria-label={tr('editor.schedule')}>
          <button className={!schedule ? 'on' : ''} onClick={() => setSpec(['schedule'], undefined)} role="radio" aria-checked={!schedule}>
            {tr('editor.manualOnly')}
          </button>
          <button className={schedule ? 'on' : ''} onClick={() => !schedule && setSpec(['schedule'], { cron: '0 3 * * *', start: todayUtc(), catchup: false })} role="radio" aria-checked={!!schedule} data-testid="schedule-cron">
            {tr('editor.onCron')}
          </button>
        </div>
        {schedule && (
          <>
            <div className={`field ${msgs('schedule.cron').length || (schedule.cron && checkCron(String(schedule.cron))) ? 'invalid' : ''}`}>
              <label htmlFor="cron">{tr('editor.cronExpr')}</label>
              <div className="row">
                <input id="cron" className="mono" value={String(schedule.cron ?? '')} onChange={(e) => setSpec(['schedule', 'cron'], e.target.value)} spellCheck={false} data-testid="cron-input" />
                <select className="input" style={{ width: 92, flex: 'none' }} value="" onChange={(e) => e.target.value && setSpec(['schedule', 'cron'], e.target.value)} aria-label={tr('editor.presets')} title={tr('editor.presets')}>
                  <option value="">{tr('editor.presets')}</option>
                  {kPresets.map((p) => (
                    <option key={p.cron} value={p.cron}>
                      {p.label} ({p.cron})
                    </option>
                  ))}
                </select>
              </div>
              {schedule.cron !== undefined && checkCron(String(schedule.cron)) && <div className="err">{checkCron(String(schedule.cron))}</div>}
              {msgs('schedule.cron').map((m) => (
                <div className="err" key={m}>
                  {m}
                </div>
              ))}
              {!checkCron(String(schedule.cron ?? '')) && <div className="hint">{describeCron(String(schedule.cron))} · {tr('editor.cronFields')}</div>}
            </div>
            <TextField label={tr('editor.time-zone')} value={schedule.timezone} list="gantry-zones" placeholder="UTC" check={checkTimezone} errors={msgs('schedule.timezone')} onChange={(v) => setSpec(['schedule', 'timezone'], v)} testId="timezone" />
            <datalist id="gantry-zones">
              {timeZones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <div className="field">
              <div className="label">
                {tr('editor.nextFive')} <span className="small muted">({zone})</span>
                {serverTicks ? <span className="tag accent">{tr('editor.confirmed')}</span> : <span className="tag">{tr('editor.computedHere')}</span>}
              </div>
              {client?.error ? (
                <div className="hint">—</div>
              ) : ticks.length ? (
                <ul className="ticks-list" data-testid="next-ticks">
                  {ticks.slice(0, 5).map((t) => (
                    <li key={t.toISOString()}>
                      <span>{fmtZoned(t, zone)}</span>
                      <span className="muted mono">{t.toISOString().slice(5, 16).replace('T', ' ')}Z</span>
                    </li>
                  ))}
                </ul>
              ) : (
                <div className="hint">{tr('editor.noTick')}</div>
              )}
            </div>
            <TextField label={tr('editor.start-rfc-3339-inclusive')} value={schedule.start} check={checkRfc3339} mono errors={msgs('schedule.start')} onChange={(v) => setSpec(['schedule', 'start'], v)} />
            <TextField label={tr('editor.end')} value={schedule.end} check={checkRfc3339} mono placeholder={tr('editor.never')} errors={msgs('schedule.end')} onChange={(v) => setSpec(['schedule', 'end'], v)} />
            <SelectField label={tr('editor.a-run-is-due')} value={schedule.semantics} defaultLabel={tr('editor.at-the-tick-trigger-default')} options={kSemantics} errors={msgs('schedule.semantics')} onChange={(v) => setSpec(['schedule', 'semantics'], v)} />
            <BoolField label={tr('editor.catch-up-every-missed-tick-gets-a-run')} value={schedule.catchup} defaultValue={kDefaults.catchup} errors={msgs('schedule.catchup')} onChange={(v) => setSpec(['schedule', 'catchup'], v)} testId="catchup" />
            {schedule.catchup === false && (
              <div className="fields-2">
                <TextField label={tr('editor.starting-deadline')} value={schedule.startingDeadline} check={(v) => checkDuration(v)} placeholder={tr('editor.none')} hint={tr('editor.run-the-latest-missed-tick-only-if-no-older-than')} errors={msgs('schedule.startingDeadline')} onChange={(v) => setSpec(['schedule', 'startingDeadline'], v)} />
                <IntField label={tr('editor.max-missed-runs')} value={schedule.maxMissedRuns} min={0} placeholder={String(kDefaults.maxMissedRuns)} errors={msgs('schedule.maxMissedRuns')} onChange={(v) => setSpec(['schedule', 'maxMissedRuns'], v)} />
              </div>
            )}
          </>
        )}
        {msgs('schedule')
          .filter((m) => !['cron', 'timezone', 'start', 'end', 'semantics', 'catchup', 'startingDeadline', 'maxMissedRuns'].some((f) => msgs(`schedule.${f}`).includes(m)))
          .map((m) => (
            <div className="field invalid" key={m}>
              <div className="err">{m}</div>
            </div>
          ))}
      </section>

      <section>
        <h3>{tr('editor.concurrency')}</h3>
        <div className="fields-2">
          <IntField label={tr('editor.max-active-runs')} value={concurrency.maxActiveRuns} min={1} placeholder={String(kDefaults.maxActiveRuns)} errors={msgs('concurrency.maxActiveRuns')} onChange={(v) => setSpec(['concurrency', 'maxActiveRuns'], v)} testId="max-active-runs" />
          <IntField label={tr('editor.keep-latest')} value={concurrency.keepLatest} min={0} placeholder={tr('editor.all')} errors={msgs('concurrency.keepLatest')} onChange={(v) => setSpec(['concurrency', 'keepLatest'], v)} />
        </div>
        <SelectField label={tr('editor.when-a-tick-finds-a-run-in-flight')} value={concurrency.policy} defaultLabel={tr('editor.allow-default')} options={kConcurrencyPolicies} errors={msgs('concurrency.policy')} onChange={(v) => setSpec(['concurrency', 'policy'], v)} />
        <div className="fields-2">
          <IntField label={tr('editor.parallelism')} value={spec.parallelism} min={0} placeholder={tr('editor.unlimited')} hint={tr('editor.tasks-at-once-inside-a-run')} errors={msgs('parallelism')} onChange={(v) => setSpec(['parallelism'], v)} testId="parallelism" />
          <TextField label={tr('editor.run-timeout')} value={spec.timeout} check={(v) => checkDuration(v)} placeholder={tr('editor.none')} errors={msgs('timeout')} onChange={(v) => setSpec(['timeout'], v)} />
        </div>
        <BoolField label={tr('editor.depends-on-past-a-run-waits-for-the-previous-run')} value={spec.dependsOnPast} defaultValue={false} errors={msgs('dependsOnPast')} onChange={(v) => setSpec(['dependsOnPast'], v)} testId="depends-on-past" />
      </section>

      <section>
        <h3>{tr('editor.environment')}</h3>
        <EnvEditor value={spec.env} errors={msgs('env')} onChange={(v) => setSpec(['env'], v)} />
      </section>

      {msgs('tasks').length > 0 && (
        <section>
          {msgs('tasks').map((m) => (
            <div className="field invalid" key={m}>
              <div className="err">{m}</div>
            </div>
          ))}
        </section>
      )}
      {otherDocs.length > 0 && (
        <section>
          <h3>{tr('editor.also-in-this-file')}</h3>
          <ul className="small" style={{ margin: '0 0 12px', paddingLeft: 18 }}>
            {otherDocs.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function EnvEditor({ value, errors, onChange }: { value: unknown; errors: string[]; onChange: (v: Record<string, string> | undefined) => void }) {
  const entries = isPlainObject(value) ? Object.entries(value).map(([k, v]) => [k, String(v)] as [string, string]) : [];
  const [key, setKey] = useState('');
  const update = (e: [string, string][]) => onChange(e.length ? Object.fromEntries(e) : undefined);
  return (
    <div className={`field ${errors.length ? 'invalid' : ''}`}>
      {entries.map(([k, v], i) => (
        <div className="kv env" key={k}>
          <input className="input mono" value={k} readOnly aria-label={tr('editor.variable')} />
          <input
            className="input mono"
            value={v}
            aria-label={`${k} value`}
            onChange={(e) => {
              const next = entries.slice();
              next[i] = [k, e.target.value];
              update(next);
            }}
          />
          <button className="btn sm ghost icon" onClick={() => update(entries.filter((_, j) => j !== i))} aria-label={`Remove ${k}`}>
            <IconTrash />
          </button>
        </div>
      ))}
      <div className="kv env">
        <input className="input mono" value={key} placeholder="NAME" onChange={(e) => setKey(e.target.value.trim())} />
        <span className="small muted" style={{ alignSelf: 'center' }}>
          {key && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? 'letters, digits, _' : ''}
        </span>
        <button
          className="btn sm icon"
          disabled={!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || entries.some(([k]) => k === key)}
          onClick={() => {
            update([...entries, [key, '']]);
            setKey('');
          }}
          aria-label={tr('editor.add-variable')}
        >
          <IconPlus />
        </button>
      </div>
      {errors.map((e) => (
        <div className="err" key={e}>
          {e}
        </div>
      ))}
      <div className="hint">{tr('editor.envHint')}</div>
    </div>
  );
}
