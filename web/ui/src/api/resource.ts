// Data for the pages with "last data first": every answer is cached by its key for the
// session, so a page opened again shows what it showed before at once (never a spinner over a
// blank page) while it refreshes in the background.

import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { api, ApiError } from './client';
import { connection } from './connection';

interface Entry {
  data?: unknown;
  error?: ApiError | Error;
  loading: boolean;
  at: number;
}

const cache = new Map<string, Entry>();
const listeners = new Map<string, Set<() => void>>();
const inflight = new Map<string, Promise<unknown>>();

function emit(key: string) {
  listeners.get(key)?.forEach((f) => f());
}

function set(key: string, patch: Partial<Entry>) {
  cache.set(key, { ...(cache.get(key) ?? { loading: false, at: 0 }), ...patch });
  emit(key);
}

export function peek<T>(key: string): T | undefined {
  return cache.get(key)?.data as T | undefined;
}

// Replaces the cached value (after an operator action, or from a live event).
export function mutate<T>(key: string, update: T | ((old: T | undefined) => T | undefined)) {
  const old = cache.get(key)?.data as T | undefined;
  const next = typeof update === 'function' ? (update as (o: T | undefined) => T | undefined)(old) : update;
  if (next !== undefined) set(key, { data: next, error: undefined });
}

export function mutateAll<T>(prefix: string, update: (old: T | undefined, key: string) => T | undefined) {
  for (const key of cache.keys()) if (key.startsWith(prefix)) mutate<T>(key, (o) => update(o, key));
}

export async function load<T>(key: string, fetcher: () => Promise<T> = () => api<T>(key)): Promise<T> {
  const running = inflight.get(key);
  if (running) return running as Promise<T>;
  set(key, { loading: true });
  const p = fetcher()
    .then((data) => {
      set(key, { data, error: undefined, loading: false, at: Date.now() });
      return data;
    })
    .catch((error: Error) => {
      set(key, { error, loading: false });
      throw error;
    })
    .finally(() => inflight.delete(key));
  inflight.set(key, p);
  return p;
}

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => Promise<T | undefined>;
}

// `key` is the API path (or null to wait); `refreshMs` polls while the page is open.
export function useResource<T>(key: string | null, opts: { refreshMs?: number; fetcher?: () => Promise<T> } = {}): Resource<T> {
  const fetcherRef = useRef(opts.fetcher);
  fetcherRef.current = opts.fetcher;
  const subscribe = useCallback(
    (f: () => void) => {
      if (!key) return () => {};
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(f);
      return () => set!.delete(f);
    },
    [key],
  );
  const entry = useSyncExternalStore(subscribe, () => (key ? cache.get(key) : undefined));
  const reload = useCallback(async () => {
    if (!key) return undefined;
    try {
      return await load<T>(key, fetcherRef.current ?? (() => api<T>(key)));
    } catch {
      return undefined;
    }
  }, [key]);
  // Read again when contact with the server is back.
  useEffect(() => (key ? connection.onRecovered(() => void reload()) : undefined), [key, reload]);
  useEffect(() => {
    if (!key) return;
    void reload();
    if (!opts.refreshMs) return;
    const id = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, opts.refreshMs);
    return () => window.clearInterval(id);
  }, [key, opts.refreshMs, reload]);
  return {
    data: entry?.data as T | undefined,
    error: entry?.error,
    loading: entry?.loading ?? !!key,
    reload,
  };
}
