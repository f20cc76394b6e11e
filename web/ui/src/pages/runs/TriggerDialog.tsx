// Trigger a run with parameters (issue #26 §3): a typed field per spec.params entry, its
// default filled in; the run's values are in its Run JSON and its tasks' environment
// (GANTRY_PARAM_<NAME>). A pipeline without params triggers on the button, as before.
import { useState } from 'react';
import { api, enc } from '../../api/client';
import type { Run } from '../../api/types';
import { Modal } from '../../components/ui';
import { initialParamText, paramsBody, type ParamSpec } from '../../model/params';
import { DialogFooter, useSubmit } from './dialogParts';
import { t as tr } from '../../i18n';

export function TriggerDialog({ pipeline, params, onRun, onClose }: { pipeline: string; params: ParamSpec[]; onRun: (r: Run) => void; onClose: () => void }) {
  const [text, setText] = useState(() => initialParamText(params));
  const { busy, error, submit } = useSubmit();
  const { body, errors } = paramsBody(params, text);
  const go = () =>
    submit(async () => {
      if (!body) return;
      onRun(await api<Run>(`/pipelines/${enc(pipeline)}/trigger`, { method: 'POST', body: { params: body } }));
      onClose();
    });
  return (
    <Modal
      title={tr('trigger.title', { name: pipeline })}
      onClose={onClose}
      footer={<DialogFooter onClose={onClose} onConfirm={() => void go()} label={tr('common.trigger')} busy={busy} disabled={!body} testid="confirm-trigger" />}
    >
      <div data-testid="trigger-dialog">
        <p style={{ marginTop: 0 }}>{tr('trigger.intro')}</p>
        {params.map((p) => (
          <div className="field" key={p.name}>
            <label htmlFor={`param-${p.name}`}>
              {p.name} <span className="tag">{p.type}</span>
              {p.default === null && <span className="small muted">{tr('trigger.required')}</span>}
            </label>
            {p.type === 'bool' ? (
              <select id={`param-${p.name}`} value={text[p.name]} onChange={(e) => setText((t) => ({ ...t, [p.name]: e.target.value }))} data-testid={`param-${p.name}`}>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : (
              <input
                id={`param-${p.name}`}
                inputMode={p.type === 'string' ? 'text' : 'decimal'}
                value={text[p.name]}
                onChange={(e) => setText((t) => ({ ...t, [p.name]: e.target.value }))}
                aria-invalid={!!errors[p.name]}
                data-testid={`param-${p.name}`}
              />
            )}
            {errors[p.name] ? <div className="hint" style={{ color: 'var(--danger)' }}>{errors[p.name]}</div> : p.description && <div className="hint">{p.description}</div>}
          </div>
        ))}
        {error && <div className="banner error">{error}</div>}
      </div>
    </Modal>
  );
}
