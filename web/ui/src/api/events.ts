// Live updates: one EventSource on GET /api/v1/events for the whole app. EventSource cannot
// send headers, so the token goes in the query (`?token=`, which only this route accepts);
// after a reconnection the browser sends Last-Event-ID itself, and a new connection
// (token changed, or after giving up) passes `?lastEventId=`. A `reset` event means the
// server's buffer no longer has what was missed: every page reloads its data.

import { useEffect, useRef, useSyncExternalStore } from 'react';
import { api, getToken, kApiBase, onTokenChange } from './client';
import { connection } from './connection';

export type EventType = 'run' | 'task' | 'attempt' | 'cluster' | 'pipeline' | 'simulation' | 'sweep' | 'plan' | 'distributed-sweep' | 'error' | 'reset';
export type LiveStatus = 'connecting' | 'live' | 'offline';

type Handler = (type: EventType, data: unknown) => void;

const kTypes: EventType[] = ['run', 'task', 'attempt', 'cluster', 'pipeline', 'simulation', 'sweep', 'plan', 'distributed-sweep', 'error', 'reset'];

class EventHub {
  private source: EventSource | null = null;
  private handlers = new Set<Handler>();
  private statusListeners = new Set<() => void>();
  private lastId: string | null = null;
  private retry = 0;
  private timer: number | null = null;
  status: LiveStatus = 'offline';

  constructor() {
    onTokenChange(() => this.restart());
    // Contact is back: connect at once if the browser has not yet, and have every page read its
    // data again (what happened meanwhile may be past the server's buffer, or the server
    // restarted with another one).
    connection.onRecovered(() => {
      if (this.status !== 'live' && this.handlers.size > 0) this.restart();
      this.dispatch('reset', null);
    });
  }

  private dispatch(type: EventType, data: unknown) {
    this.handlers.forEach((h) => h(type, data));
  }

  private setStatus(s: LiveStatus) {
    if (this.status === s) return;
    this.status = s;
    this.statusListeners.forEach((f) => f());
  }

  subscribeStatus(f: () => void) {
    this.statusListeners.add(f);
    return () => this.statusListeners.delete(f);
  }

  on(h: Handler): () => void {
    this.handlers.add(h);
    this.ensure();
    return () => {
      this.handlers.delete(h);
    };
  }

  private ensure() {
    if (!this.source && this.timer === null) this.connect();
  }

  restart() {
    this.source?.close();
    this.source = null;
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.setStatus('offline');
    if (getToken()) this.connect();
  }

  private connect() {
    const token = getToken();
    if (!token || typeof EventSource === 'undefined') return;
    const params = new URLSearchParams({ token });
    if (this.lastId) params.set('lastEventId', this.lastId);
    this.setStatus('connecting');
    const es = new EventSource(`${kApiBase}/events?${params}`);
    this.source = es;
    es.onopen = () => {
      this.retry = 0;
      this.setStatus('live');
      connection.succeeded();
    };
    es.onerror = () => {
      // The stream broke (or could not open): is the server there? A request says, and marks
      // the contact lost if not (client.ts). A server that closed one stream is no loss.
      if (getToken()) void api('/clock').catch(() => {});
      if (es.readyState === EventSource.CLOSED) {
        // The browser gave up (an HTTP error such as 401): try again later, ourselves.
        this.source = null;
        this.setStatus('offline');
        const delay = Math.min(30000, 1000 * 2 ** this.retry++);
        this.timer = window.setTimeout(() => {
          this.timer = null;
          this.connect();
        }, delay);
      } else {
        this.setStatus('connecting');
      }
    };
    for (const type of kTypes) {
      es.addEventListener(type, (e) => {
        const ev = e as MessageEvent<string>;
        if (ev.lastEventId) this.lastId = ev.lastEventId;
        let data: unknown = null;
        try {
          data = ev.data ? JSON.parse(ev.data) : null;
        } catch {
          return;
        }
        this.dispatch(type, data);
      });
    }
  }
}

export const hub = new EventHub();

// Calls `handler` for each live event of the given types while the component is mounted.
export function useLiveEvents(types: EventType[], handler: (type: EventType, data: unknown) => void) {
  const ref = useRef(handler);
  ref.current = handler;
  const key = types.join(',');
  useEffect(() => {
    const wanted = new Set(key.split(','));
    return hub.on((type, data) => {
      if (wanted.has(type)) ref.current(type, data);
    });
  }, [key]);
}

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (f) => hub.subscribeStatus(f),
    () => hub.status,
  );
}
