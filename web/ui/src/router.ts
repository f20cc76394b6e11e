// Hash routes (the server serves one index.html at /; no server-side routing needed).
import { useSyncExternalStore } from 'react';

export interface Route {
  path: string[]; // "#/runs/etl" -> ["runs", "etl"]
  query: URLSearchParams;
}

function read(): Route {
  const hash = window.location.hash.replace(/^#\/?/, '');
  const [p, q = ''] = hash.split('?');
  return { path: p.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q) };
}

let current = read();
let currentHash = window.location.hash;
const listeners = new Set<() => void>();
window.addEventListener('hashchange', () => {
  current = read();
  currentHash = window.location.hash;
  listeners.forEach((f) => f());
});

export function useRoute(): Route {
  return useSyncExternalStore(
    (f) => {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    () => (window.location.hash === currentHash ? current : (current = read())),
  );
}

export function href(...parts: (string | undefined)[]): string {
  return '#/' + parts.filter((p): p is string => !!p).map(encodeURIComponent).join('/');
}

export function navigate(to: string, replace = false) {
  if (replace) window.history.replaceState(null, '', to);
  else window.location.hash = to.replace(/^#/, '');
  if (replace) {
    current = read();
    currentHash = window.location.hash;
    listeners.forEach((f) => f());
  }
}
