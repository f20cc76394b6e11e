// One attempt's log, one click from the attempt (issue #26 §2): in the simulated world the
// attempt's own story (asked, queued behind, placed, started, ended and why), against a real
// cluster its pods' logs, each line prefixed with its pod. Read again every few seconds while
// the attempt runs.
import { useEffect, useRef, useState } from 'react';
import { apiText, enc } from '../../api/client';
import type { Attempt } from '../../api/types';
import { Modal, StateBadge } from '../../components/ui';
import { t as tr } from '../../i18n';

export function attemptLogPath(pipeline: string, logicalTime: string, task: string, number: number): string {
  return `/pipelines/${enc(pipeline)}/runs/${enc(logicalTime)}/tasks/${enc(task)}/attempts/${number}/log`;
}

export function AttemptLog({ pipeline, logicalTime, task, number, attempt, onClose }: { pipeline: string; logicalTime: string; task: string; number: number; attempt: Attempt; onClose: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  const open = !attempt.end;
  useEffect(() => {
    const abort = new AbortController();
    let timer: number | null = null;
    const read = async () => {
      try {
        const t = await apiText(attemptLogPath(pipeline, logicalTime, task, number), { signal: abort.signal });
        setText(t);
        setError(null);
      } catch (e) {
        if ((e as Error).name !== 'AbortError') setError((e as Error).message);
      }
      if (open && !abort.signal.aborted) timer = window.setTimeout(() => void read(), 3000);
    };
    void read();
    return () => {
      abort.abort();
      if (timer !== null) window.clearTimeout(timer);
    };
  }, [pipeline, logicalTime, task, number, open]);
  // Follow the end while the attempt runs, as `kubectl logs -f` does.
  useEffect(() => {
    if (open && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text, open]);
  return (
    <Modal
      wide
      title={
        <span className="row" style={{ gap: 8 }}>
          {task} · {tr('log.attempt', { n: number })} <StateBadge state={attempt.state} />
        </span>
      }
      onClose={onClose}
    >
      <div data-testid="attempt-log">
        {attempt.reason && <div className="why" style={{ marginBottom: 8 }}>{attempt.reason}</div>}
        {error && <div className="banner error">{tr('log.failed', { message: error })}</div>}
        {text === null && !error && <div className="small muted">{tr('log.reading')}</div>}
        {text !== null && (
          <pre ref={pre} className="log" data-testid="log-text">
            {text || tr('log.empty')}
          </pre>
        )}
        {open && <div className="small muted">{tr('log.running')}</div>}
      </div>
    </Modal>
  );
}
