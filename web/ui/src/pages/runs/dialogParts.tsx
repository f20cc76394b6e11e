// What the Runs page's dialogs share: a submit that keeps the dialog busy and says the
// server's refusal in it, and the Cancel / confirm footer.
import { useState } from 'react';
import { actionError } from '../PipelinesPage';
import { t } from '../../i18n';

export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(actionError(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, submit };
}

export function DialogFooter({ onClose, onConfirm, label, busy, disabled, danger, testid }: { onClose: () => void; onConfirm: () => void; label: string; busy: boolean; disabled?: boolean; danger?: boolean; testid: string }) {
  return (
    <>
      <button className="btn" onClick={onClose}>
        {t('common.cancel')}
      </button>
      <button className={`btn ${danger ? 'danger' : 'primary'} ${busy ? 'busy' : ''}`} disabled={busy || disabled} onClick={onConfirm} data-testid={testid}>
        {label}
      </button>
    </>
  );
}
