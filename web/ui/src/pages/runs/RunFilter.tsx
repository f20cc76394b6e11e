// The Runs page's filter: which runs are asked of the server (a state, a window of logical
// times), kept in the address by the page. The window is typed in UTC (the page's time base)
// and checked here first: a time that cannot be read, or an end before the start, is said under
// the fields and never sent. Quick windows (the last 24 hours, 7 or 30 days, up to the server's
// now) and Reset (every run) are one click.
import { useEffect, useState, type FormEvent } from 'react';
import { serverNow } from '../../api/session';
import type { RunState } from '../../api/types';
import { stateLabel } from '../../components/ui';
import { useT } from '../../i18n';
import { checkRangeForm, isRunQueryFiltered, kAllRuns, kRunStates, lastHours, type RangeProblem, type RunQuery } from '../../model/runQuery';

const kQuick = [
  { hours: 24, key: 'runs.last24h', id: '24h' },
  { hours: 24 * 7, key: 'runs.last7d', id: '7d' },
  { hours: 24 * 30, key: 'runs.last30d', id: '30d' },
] as const;

// `fromText` / `toText`: the address's window as the fields show it; `problem`: the address's
// window when it cannot be read (the page then asks nothing).
export function RunFilter({ query, fromText, toText, problem, onAsk }: { query: RunQuery; fromText: string; toText: string; problem: RangeProblem | null; onAsk: (q: RunQuery) => void }) {
  const t = useT();
  const [from, setFrom] = useState(fromText);
  const [to, setTo] = useState(toText);
  const [refusal, setRefusal] = useState<RangeProblem | null>(problem);
  // The address changed (a quick window, Reset, Back): the fields show what it asks.
  useEffect(() => {
    setFrom(fromText);
    setTo(toText);
    setRefusal(problem);
  }, [fromText, toText, problem]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const c = checkRangeForm(from, to);
    if (!c.ok) {
      setRefusal({ field: c.field, key: c.key, params: c.params });
      return;
    }
    setRefusal(null);
    onAsk({ ...query, from: c.from, to: c.to });
  };
  const invalid = (field: 'from' | 'to') => (refusal?.field === field ? 'input sm invalid' : 'input sm');

  return (
    <form className="runs-filter" onSubmit={apply} noValidate data-testid="runs-filter">
      <select className="input sm" value={query.state} onChange={(e) => onAsk({ ...query, state: e.target.value as RunState | '' })} aria-label={t('runs.inState')} data-testid="runs-state-filter">
        <option value="">{t('runs.all')}</option>
        {kRunStates.map((st) => (
          <option key={st} value={st}>
            {stateLabel(st)}
          </option>
        ))}
      </select>
      <label className="runs-filter-time" title={t('runs.rangeHint')}>
        {t('runs.from')}
        <input className={invalid('from')} value={from} onChange={(e) => setFrom(e.target.value)} placeholder="YYYY-MM-DD HH:MM" aria-invalid={refusal?.field === 'from'} spellCheck={false} data-testid="runs-from" />
      </label>
      <label className="runs-filter-time" title={t('runs.rangeHint')}>
        {t('runs.to')}
        <input className={invalid('to')} value={to} onChange={(e) => setTo(e.target.value)} placeholder="YYYY-MM-DD HH:MM" aria-invalid={refusal?.field === 'to'} spellCheck={false} data-testid="runs-to" />
      </label>
      <span className="small muted" title={t('runs.rangeHint')}>
        UTC
      </span>
      <button type="submit" className="btn sm" data-testid="runs-range-apply">
        {t('runs.apply')}
      </button>
      <span className="runs-filter-quick">
        <span className="small muted">{t('runs.last')}</span>
        {kQuick.map((w) => (
          <button key={w.id} type="button" className="btn sm ghost" onClick={() => onAsk({ ...query, ...lastHours(w.hours, serverNow()) })} title={t('runs.lastTitle', { span: t(w.key) })} data-testid={`runs-last-${w.id}`}>
            {t(w.key)}
          </button>
        ))}
      </span>
      {(isRunQueryFiltered(query) || problem) && (
        <button type="button" className="btn sm ghost" onClick={() => onAsk(kAllRuns)} title={t('runs.resetTitle')} data-testid="runs-filter-reset">
          {t('runs.reset')}
        </button>
      )}
      {refusal && (
        <div className="runs-filter-error" role="alert" data-testid="runs-range-error" data-field={refusal.field}>
          {t(refusal.key, refusal.params)}
        </div>
      )}
    </form>
  );
}
