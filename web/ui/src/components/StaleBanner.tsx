import { useEffect, useSyncExternalStore } from 'react';
import { api } from '../api/client';
import { connection, retryDelayMs } from '../api/connection';
import { serverNow } from '../api/session';
import { Banner } from './ui';
import { useT } from '../i18n';

// "Lost contact with the server at 14:02:17 — retrying; data shown is from then", on every page
// while the server cannot be reached (api/connection.ts). The time is the server's (UTC), frozen
// at the loss. Meanwhile the server is asked again (GET /clock) after 1, 2, 4, 8, then every 10
// seconds; the first answer clears the banner and every page reloads its data.
export function StaleBanner() {
  const t = useT();
  const state = useSyncExternalStore(
    (f) => connection.subscribe(f),
    () => connection.state,
  );
  useEffect(() => {
    if (!state.lost) return;
    let attempt = 0;
    let timer: number | null = null;
    let stopped = false;
    const probe = () => {
      timer = window.setTimeout(async () => {
        timer = null;
        try {
          await api('/clock');
        } catch {
          /* still lost: connection.ts knows */
        }
        if (!stopped && connection.state.lost) probe();
      }, retryDelayMs(attempt++));
    };
    probe();
    return () => {
      stopped = true;
      if (timer !== null) window.clearTimeout(timer);
    };
  }, [state.lost]);
  if (!state.lost) return null;
  const at = new Date(serverNow()).toISOString().slice(11, 19);
  return (
    <div className="stale-banner" data-testid="stale-banner">
      <Banner kind="warn">
        <strong>
          {t('stale.lost', { at })}
        </strong>{' '}
        <span className="small">{t('stale.stopped', { cause: state.cause ?? '' })}</span>
      </Banner>
    </div>
  );
}
