import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { useLiveEvents } from '../api/events';
import { summarizeProblems, type ServerProblems } from '../api/problems';
import { Banner } from './ui';

// Asked again on each `error` event (a problem found), each `pipeline` event (applying or
// deleting a pipeline clears its problem), after a `reset`, and every 15 s while a problem is
// shown: a disk that has room again says so by no event.
const kRecheckMs = 15000;

export function ServerProblemsBanner() {
  const [state, setState] = useState<ServerProblems | null>(null);
  const load = useCallback(() => {
    api<ServerProblems>('/problems')
      .then(setState)
      .catch(() => {}); // an unreachable server shows as Offline in the navigation
  }, []);
  useEffect(load, [load]);
  useLiveEvents(['error', 'pipeline', 'reset'], load);
  const summary = summarizeProblems(state);
  useEffect(() => {
    if (!summary) return;
    const id = window.setInterval(load, kRecheckMs);
    return () => window.clearInterval(id);
  }, [summary !== null, load]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!summary) return null;
  return (
    <div className="server-problems" data-testid="server-problems">
      <Banner kind="error">
        <strong>{summary.title}</strong>
        <ul>
          {summary.items.map((x) => (
            <li key={x}>
              <code>{x}</code>
            </li>
          ))}
        </ul>
      </Banner>
    </div>
  );
}
