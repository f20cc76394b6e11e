// What the signed-in session knows about the server: the token's role and name (GET /whoami, so
// the pages grey out what the role cannot do instead of showing a 403 afterwards: a viewer only
// reads, an editor also changes pipelines, runs and studies, an admin also manages tokens and
// reads the audit log, web/API.md) and the
// server's clock (GET /clock). `gantry serve --speed 60` runs its simulated world sixty times
// faster than the wall clock, and ahead of it, so "in 5 min", a running run's duration and the
// Gantt's "now" are computed on the server's clock, never on the browser's.

import { useEffect, useSyncExternalStore } from 'react';
import { api, getToken, onTokenChange } from './client';
import { connection } from './connection';
import { t } from '../i18n/t';

export type Role = 'admin' | 'editor' | 'viewer';

// The role whoami names; an unknown word (a newer server's role) is taken as the least, viewer.
export function parseRole(word: unknown): Role {
  return word === 'admin' || word === 'editor' ? word : 'viewer';
}

interface ClockSample {
  serverMs: number; // the server's now when it answered
  localMs: number; // the browser's clock when the answer came
  speed: number; // server seconds per wall second
}

interface SessionState {
  role: Role | null; // null until known
  name: string | null; // the token's name, null until known
  clock: ClockSample | null;
}

let state: SessionState = { role: null, name: null, clock: null };
const listeners = new Set<() => void>();
let timer: number | null = null;

function set(patch: Partial<SessionState>) {
  state = { ...state, ...patch };
  listeners.forEach((f) => f());
}

async function refresh() {
  if (!getToken()) return;
  const sent = Date.now();
  const [who, clock] = await Promise.allSettled([
    api<{ role: string; name?: string }>('/whoami'),
    api<{ now: string; speed: number }>('/clock'),
  ]);
  const patch: Partial<SessionState> = {};
  if (who.status === 'fulfilled') {
    patch.role = parseRole(who.value.role);
    patch.name = who.value.name ?? null;
  }
  if (clock.status === 'fulfilled' && Number.isFinite(Date.parse(clock.value.now)))
    // The server read its clock about half-way through the request.
    patch.clock = { serverMs: Date.parse(clock.value.now), localMs: (sent + Date.now()) / 2, speed: clock.value.speed > 0 ? clock.value.speed : 1 };
  set(patch);
}

function start() {
  if (typeof window === 'undefined') return;
  if (timer !== null) window.clearInterval(timer);
  timer = null;
  set({ role: null, name: null, clock: null });
  if (!getToken()) return;
  void refresh();
  // Re-synchronise now and then: the server's clock is a scaled wall clock, so drift is small,
  // but a restarted server may have jumped.
  timer = window.setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, 60000);
}

if (typeof window !== 'undefined') {
  onTokenChange(start);
  start();
  // A server back from a restart may run another clock (another --speed, another start).
  connection.onRecovered(() => void refresh());
}

// The server's current time in milliseconds since the epoch (the browser's before it is known).
// While contact with the server is lost it stays at the moment of the loss: the data shown is
// from then, and "in 5 min" or a running task's duration must not keep counting.
export function serverNow(): number {
  const c = state.clock;
  const local = connection.state.lostAtLocal ?? Date.now();
  if (!c) return local;
  return c.serverMs + (local - c.localMs) * c.speed;
}

// Simulated seconds per wall second (1 for a server on the wall clock).
export function serverSpeed(): number {
  return state.clock?.speed ?? 1;
}

function subscribe(f: () => void) {
  listeners.add(f);
  return () => listeners.delete(f);
}

export function useSession(): SessionState {
  // A token put in storage without signing in here (another tab) is picked up on first use.
  useEffect(() => {
    if (state.role === null && timer === null && getToken()) start();
  }, []);
  return useSyncExternalStore(subscribe, () => state);
}

// True when the token may change things (editor or admin, or not known yet: the server has the
// last word).
export function useCanWrite(): boolean {
  return useSession().role !== 'viewer';
}

// True when the token is an admin's: tokens and the audit log (false until known, so the page
// of tokens is not offered to a role that would get 403).
export function useIsAdmin(): boolean {
  return useSession().role === 'admin';
}

// The title of a button a viewer's token may not use, in the page's language.
export const readOnlyHint = () => t('session.readOnlyHint');
