// What the signed-in session knows about the server: the token's role (GET /whoami, so the
// pages grey out what a read-only token cannot do instead of showing a 403 afterwards) and the
// server's clock (GET /clock). `gantry serve --speed 60` runs its simulated world sixty times
// faster than the wall clock, and ahead of it, so "in 5 min", a running run's duration and the
// Gantt's "now" are computed on the server's clock, never on the browser's.

import { useEffect, useSyncExternalStore } from 'react';
import { api, getToken, onTokenChange } from './client';

export type Role = 'admin' | 'viewer';

interface ClockSample {
  serverMs: number; // the server's now when it answered
  localMs: number; // the browser's clock when the answer came
  speed: number; // server seconds per wall second
}

interface SessionState {
  role: Role | null; // null until known
  clock: ClockSample | null;
}

let state: SessionState = { role: null, clock: null };
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
    api<{ role: Role }>('/whoami'),
    api<{ now: string; speed: number }>('/clock'),
  ]);
  const patch: Partial<SessionState> = {};
  if (who.status === 'fulfilled') patch.role = who.value.role === 'viewer' ? 'viewer' : 'admin';
  if (clock.status === 'fulfilled' && Number.isFinite(Date.parse(clock.value.now)))
    // The server read its clock about half-way through the request.
    patch.clock = { serverMs: Date.parse(clock.value.now), localMs: (sent + Date.now()) / 2, speed: clock.value.speed > 0 ? clock.value.speed : 1 };
  set(patch);
}

function start() {
  if (typeof window === 'undefined') return;
  if (timer !== null) window.clearInterval(timer);
  timer = null;
  set({ role: null, clock: null });
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
}

// The server's current time in milliseconds since the epoch (the browser's before it is known).
export function serverNow(): number {
  const c = state.clock;
  if (!c) return Date.now();
  return c.serverMs + (Date.now() - c.localMs) * c.speed;
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

// True when the token may change things (admin, or not known yet: the server has the last word).
export function useCanWrite(): boolean {
  return useSession().role !== 'viewer';
}

export const kReadOnlyHint = 'Read-only token: ask for an admin token to change pipelines and runs.';
