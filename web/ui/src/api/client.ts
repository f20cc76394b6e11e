// The REST client: same origin, /api/v1, every request with `Authorization: Bearer <token>`
// (the token the user pasted on the login screen, kept in localStorage).

import { connection, isUnreachableStatus } from './connection';
import type { ApiErrorBody } from './types';

const kTokenKey = 'gantry.token';
export const kApiBase = '/api/v1';

export function getToken(): string | null {
  try {
    return localStorage.getItem(kTokenKey);
  } catch {
    return null;
  }
}

export function setToken(token: string | null) {
  if (token) localStorage.setItem(kTokenKey, token);
  else localStorage.removeItem(kTokenKey);
  tokenListeners.forEach((f) => f(token));
}

const tokenListeners = new Set<(t: string | null) => void>();
// Signing in or out in another tab of the same origin.
if (typeof window !== 'undefined')
  window.addEventListener('storage', (e) => {
    if (e.key === kTokenKey) tokenListeners.forEach((f) => f(e.newValue));
  });
export function onTokenChange(f: (t: string | null) => void): () => void {
  tokenListeners.add(f);
  return () => tokenListeners.delete(f);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: ApiErrorBody | null,
  ) {
    super(message);
  }
  get validation() {
    return this.body?.errors ?? null;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown; // JSON unless `yaml` is given
  yaml?: string;
  signal?: AbortSignal;
  token?: string; // the login screen checks a token before storing it
}

export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const text = await send(path, opts, 'application/json');
  if (!text) return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null as T;
  }
}

// A text answer (an attempt's log, web/API.md): the same token, connection tracking and errors
// as api(), the body as text.
export async function apiText(path: string, opts: RequestOptions = {}): Promise<string> {
  return send(path, opts, 'text/plain');
}

// One request: the body of a 2xx answer, or an ApiError from the server's JSON error body.
async function send(path: string, opts: RequestOptions, accept: string): Promise<string> {
  const token = opts.token ?? getToken();
  const headers: Record<string, string> = { Accept: accept };
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (opts.yaml !== undefined) {
    headers['Content-Type'] = 'application/yaml';
    body = opts.yaml;
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(kApiBase + path, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body, signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    connection.failed('The server cannot be reached');
    throw new ApiError(0, 'network', 'The server cannot be reached. Is gantry serve running?', null);
  }
  if (isUnreachableStatus(res.status)) connection.failed(`A proxy answered HTTP ${res.status}`);
  else connection.succeeded();
  const text = await res.text();
  if (!res.ok) {
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const b = (parsed ?? null) as ApiErrorBody | null;
    const code = b?.error?.code ?? (b?.errors ? 'invalid' : String(res.status));
    const message = b?.error?.message ?? (b?.errors ? `${b.errors.length} validation error${b.errors.length === 1 ? '' : 's'}` : `HTTP ${res.status}`);
    const err = new ApiError(res.status, code, message, b);
    if (res.status === 401 && !opts.token) {
      sessionStorage.setItem('gantry.rejected', '1');
      setToken(null);
    }
    throw err;
  }
  return text;
}

export const enc = encodeURIComponent;
