// The confirmation of an operator's action (issue #26 §3): what it does in words, and the
// tasks it changes, from → to, before anything happens. Nothing acts on the first click.
import { useEffect, useState, type ReactNode } from 'react';
import { StateBadge, Modal } from '../../components/ui';
import type { TaskChange } from '../../model/runActions';
import { DialogFooter, useSubmit } from './dialogParts';
import { t } from '../../i18n';

export interface ConfirmChangesProps {
  title: string;
  what: ReactNode; // one or two sentences: what the action does
  // The changes, known at once (a run's action) or asked of the server (a dry run).
  changes: TaskChange[] | (() => Promise<TaskChange[]>);
  confirm: string; // the button's words: "Kill the run"
  danger?: boolean;
  children?: ReactNode; // options (checkboxes) above the list
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

export function ConfirmChanges({ title, what, changes, confirm, danger, children, onConfirm, onClose }: ConfirmChangesProps) {
  const [list, setList] = useState<TaskChange[] | null>(Array.isArray(changes) ? changes : null);
  const { busy, error, setError, submit } = useSubmit();
  useEffect(() => {
    if (Array.isArray(changes)) {
      setList(changes);
      return;
    }
    let live = true;
    setList(null);
    setError(null);
    changes()
      .then((c) => live && setList(c))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [changes]);
  const go = () =>
    submit(async () => {
      await onConfirm();
      onClose();
    });
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={<DialogFooter onClose={onClose} onConfirm={() => void go()} label={confirm} busy={busy} disabled={list === null} danger={danger} testid="confirm-action" />}
    >
      <div data-testid="action-dialog">
        <p style={{ marginTop: 0 }}>{what}</p>
        {children}
        {error && <div className="banner error">{error}</div>}
        {list === null && !error && <div className="small muted">{t('dialog.asking')}</div>}
        {list !== null &&
          (list.length === 0 ? (
            <div className="small muted" data-testid="no-changes">
              {t('dialog.noChanges')}
            </div>
          ) : (
            <table className="table small" data-testid="changes">
              <thead>
                <tr>
                  <th>{t('dialog.colTask')}</th>
                  <th>{t('dialog.colNow')}</th>
                  <th>{t('dialog.colAfter')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((c) => (
                  <tr key={c.task} data-task={c.task}>
                    <td>
                      <b>{c.task}</b>
                    </td>
                    <td>
                      <StateBadge state={c.from} />
                    </td>
                    <td>
                      <StateBadge state={c.to} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </div>
    </Modal>
  );
}
