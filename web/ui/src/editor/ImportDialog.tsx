import { useMemo, useState } from 'react';
import { Banner, Modal } from '../components/ui';
import { IconUpload } from '../components/icons';
import { importCubeStudio, importToYaml } from '../model/cubeStudio';
import type { ImportResult } from '../model/cubeStudio';
import { href, navigate } from '../router';
import { setDraft } from './drafts';

// Import of a cube-studio pipeline export (its JSON of pipeline + tasks): a preview of the
// Gantry YAML and of every note (what was mapped, what has no Gantry field), then the editor.
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const [timezone, setTimezone] = useState('Asia/Shanghai');
  const parsed = useMemo((): { result?: ImportResult; yaml?: string; error?: string } => {
    if (!text.trim()) return {};
    try {
      const result = importCubeStudio(text, { timezone });
      return { result, yaml: importToYaml(result) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [text, timezone]);

  const readFile = async (f: File | undefined) => {
    if (f) setText(await f.text());
  };
  const open = () => {
    if (!parsed.result || !parsed.yaml) return;
    setDraft({ text: parsed.yaml, positions: parsed.result.positions, notes: parsed.result.notes });
    onClose();
    navigate(href('editor', 'new') + '?draft=1');
  };
  const warnings = parsed.result?.notes.filter((n) => n.level === 'warning') ?? [];
  const infos = parsed.result?.notes.filter((n) => n.level === 'info') ?? [];

  return (
    <Modal
      title="Import a cube-studio pipeline"
      onClose={onClose}
      wide
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn primary" disabled={!parsed.result} onClick={open} data-testid="import-open">
            Open in editor
          </button>
        </>
      }
    >
      <p className="muted" style={{ marginTop: 0 }}>
        Paste the JSON that cube-studio exports for a pipeline (the pipeline with its <code>dag_json</code> and its tasks), or choose the file. Templates, images, commands,
        resources (GPU type included), retries, timeouts, the DAG, the cron and the editor's node positions are carried over; every field without a Gantry counterpart is listed below.
      </p>
      <div className="row" style={{ marginBottom: 10 }}>
        <label className="btn">
          <IconUpload /> Choose file
          <input type="file" accept=".json,application/json" hidden onChange={(e) => readFile(e.target.files?.[0])} />
        </label>
        <span className="muted small">cron_time is read in</span>
        <input className="input" style={{ width: 200 }} value={timezone} onChange={(e) => setTimezone(e.target.value)} aria-label="Time zone of cron_time" />
      </div>
      <div className="grid-2">
        <div className="field">
          <label>cube-studio export (JSON)</label>
          <textarea rows={18} value={text} onChange={(e) => setText(e.target.value)} placeholder='{"pipeline": {"name": ..., "dag_json": ...}, "tasks": [...]}' data-testid="import-json" />
        </div>
        <div className="field">
          <label>Gantry YAML</label>
          <textarea rows={18} readOnly value={parsed.yaml ?? ''} placeholder="The pipeline appears here" />
        </div>
      </div>
      {parsed.error && <Banner>{parsed.error}</Banner>}
      {parsed.result && (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
          {warnings.length > 0 && (
            <Banner kind="warn">
              <b>{warnings.length} to review</b>
              <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
                {warnings.map((n, i) => (
                  <li key={i}>
                    {n.task && <code>{n.task}</code>} {n.message}
                  </li>
                ))}
              </ul>
            </Banner>
          )}
          <details>
            <summary className="small muted" style={{ cursor: 'pointer' }}>
              {infos.length} mapping notes
            </summary>
            <ul className="small" style={{ paddingLeft: 18 }}>
              {infos.map((n, i) => (
                <li key={i}>
                  {n.task && <code>{n.task}</code>} {n.message}
                </li>
              ))}
            </ul>
          </details>
        </div>
      )}
    </Modal>
  );
}
