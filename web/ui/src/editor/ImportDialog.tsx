import { useMemo, useState } from 'react';
import { Banner, Modal } from '../components/ui';
import { IconUpload } from '../components/icons';
import { importCubeStudio, importNoteText, importToYaml } from '../model/cubeStudio';
import type { ImportResult } from '../model/cubeStudio';
import { href, navigate } from '../router';
import { setDraft } from './drafts';
import { tNodes, useT } from '../i18n';

// Import of a cube-studio pipeline export (its JSON of pipeline + tasks): a preview of the
// Gantry YAML and of every note (what was mapped, what has no Gantry field), then the editor.
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const t = useT();
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
      title={t('import.title')}
      onClose={onClose}
      wide
      footer={
        <>
          <button className="btn" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button className="btn primary" disabled={!parsed.result} onClick={open} data-testid="import-open">
            {t('import.open')}
          </button>
        </>
      }
    >
      <p className="muted" style={{ marginTop: 0 }}>
        {tNodes('import.intro', { dag: <code>dag_json</code> })}
      </p>
      <div className="row" style={{ marginBottom: 10 }}>
        <label className="btn">
          <IconUpload /> {t('import.choose')}
          <input type="file" accept=".json,application/json" hidden onChange={(e) => readFile(e.target.files?.[0])} />
        </label>
        <span className="muted small">{t('import.tzRead')}</span>
        <input className="input" style={{ width: 200 }} value={timezone} onChange={(e) => setTimezone(e.target.value)} aria-label={t('import.tzLabel')} />
      </div>
      <div className="grid-2">
        <div className="field">
          <label>{t('import.export')}</label>
          <textarea rows={18} value={text} onChange={(e) => setText(e.target.value)} placeholder='{"pipeline": {"name": ..., "dag_json": ...}, "tasks": [...]}' data-testid="import-json" />
        </div>
        <div className="field">
          <label>{t('import.yaml')}</label>
          <textarea rows={18} readOnly value={parsed.yaml ?? ''} placeholder={t('import.appears')} />
        </div>
      </div>
      {parsed.error && <Banner>{parsed.error}</Banner>}
      {parsed.result && (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
          {warnings.length > 0 && (
            <Banner kind="warn">
              <b>{t('import.review', { n: warnings.length })}</b>
              <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
                {warnings.map((n, i) => (
                  <li key={i} data-testid="import-warning">
                    {n.task && <code>{n.task}</code>} {importNoteText(n, t)}
                  </li>
                ))}
              </ul>
            </Banner>
          )}
          <details>
            <summary className="small muted" style={{ cursor: 'pointer' }}>
              {t('import.notes', { n: infos.length })}
            </summary>
            <ul className="small" style={{ paddingLeft: 18 }}>
              {infos.map((n, i) => (
                <li key={i} data-testid="import-note">
                  {n.task && <code>{n.task}</code>} {importNoteText(n, t)}
                </li>
              ))}
            </ul>
          </details>
        </div>
      )}
    </Modal>
  );
}
