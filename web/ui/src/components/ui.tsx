// Small building blocks shared by the pages.
import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { IconAlert, IconClose } from './icons';
import { t as tr } from '../i18n';
import { en } from '../i18n/en';

// A state word as the badge shows it, in the page's language (the data-state stays English).
export function stateLabel(state: string): string {
  const key = `state.${state}`;
  return key in en ? tr(key as 'state.queued') : state.replace('_', ' ');
}

export function StateBadge({ state, label }: { state: string; label?: string }) {
  return (
    <span className={`badge s-${state}`} data-state={state}>
      <i />
      {label ?? stateLabel(state)}
    </span>
  );
}

export function Skeleton({ w = '100%', h = 14, style }: { w?: number | string; h?: number; style?: React.CSSProperties }) {
  return <div className="skeleton" style={{ width: w, height: h, ...style }} />;
}

export function SkeletonRows({ rows = 5, cols = 5 }: { rows?: number; cols?: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} className="skeleton-row">
          {Array.from({ length: cols }, (_, c) => (
            <td key={c}>
              <Skeleton w={c === 0 ? 140 : 70 + ((r * 7 + c * 13) % 50)} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function Switch({ on, onChange, disabled, label }: { on: boolean; onChange: (v: boolean) => void; disabled?: boolean; label: string }) {
  return <button type="button" role="switch" aria-checked={on} aria-label={label} className={`switch ${on ? 'on' : ''}`} disabled={disabled} onClick={() => onChange(!on)} />;
}

export function Banner({ kind = 'error', children }: { kind?: 'error' | 'warn' | 'info'; children: ReactNode }) {
  return (
    <div className={`banner ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <IconAlert width={16} height={16} style={{ flex: 'none', marginTop: 1 }} />
      <div>{children}</div>
    </div>
  );
}

export function Modal({ title, onClose, children, footer, wide }: { title: ReactNode; onClose: () => void; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  useEffect(() => {
    const f = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', f);
    return () => window.removeEventListener('keydown', f);
  }, [onClose]);
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal" role="dialog" aria-modal="true" style={wide ? { width: 'min(980px, 100%)' } : undefined}>
        <div className="modal-head">
          <h2>{title}</h2>
          <button className="btn ghost icon" style={{ marginLeft: 'auto' }} onClick={onClose} aria-label={tr('common.close')}>
            <IconClose />
          </button>
        </div>
        <div className="modal-body">{children}</div>
        {footer && <div className="modal-foot">{footer}</div>}
      </div>
    </div>
  );
}

// ---- toasts ----
export interface Toast {
  id: number;
  kind: 'info' | 'ok' | 'error';
  text: ReactNode;
}
type Notify = (kind: Toast['kind'], text: ReactNode, ms?: number) => void;
const ToastContext = createContext<Notify>(() => {});
export const useToast = () => useContext(ToastContext);

let nextToast = 1;
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const notify = useCallback<Notify>((kind, text, ms = 5000) => {
    const id = nextToast++;
    setToasts((t) => [...t.slice(-3), { id, kind, text }]);
    window.setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), ms);
  }, []);
  return (
    <ToastContext.Provider value={notify}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.kind}`} data-kind={t.kind}>
            <div>{t.text}</div>
            <button onClick={() => setToasts((all) => all.filter((x) => x.id !== t.id))} aria-label={tr('common.dismiss')}>
              <IconClose width={14} height={14} />
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
