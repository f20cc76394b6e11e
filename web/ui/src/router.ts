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

// A page with something to lose (the editor's unsaved changes) registers the question to ask
// before it is left in the app: a link, the navigation, Back. The browser's own beforeunload
// covers closing the tab and reloading. Navigations that replace the route (navigate(to, true):
// the app's own redirects, the editor following a renamed pipeline) are not asked about.
let leaveGuard: (() => string | null) | null = null;

// Registers `guard` (which returns the question, or null when there is nothing to lose);
// returns the function that removes it.
export function setLeaveGuard(guard: () => string | null): () => void {
  leaveGuard = guard;
  return () => {
    if (leaveGuard === guard) leaveGuard = null;
  };
}

window.addEventListener('hashchange', (e) => {
  const question = leaveGuard?.();
  if (question && !window.confirm(question)) {
    // Stay: put the address back without a route change (no hashchange for replaceState).
    window.history.replaceState(null, '', new URL(e.oldURL).hash || '#/');
    return;
  }
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
