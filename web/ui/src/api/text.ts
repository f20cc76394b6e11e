// A text answer of the API (an attempt's log, web/API.md): the same token and the same errors
// as api(), the body as text instead of JSON.
import { ApiError, getToken, kApiBase } from './client';
import type { ApiErrorBody } from './types';

export async function apiText(path: string, signal?: AbortSignal): Promise<string> {
  const token = getToken();
  let res: Response;
  try {
    res = await fetch(kApiBase + path, { headers: { Accept: 'text/plain', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The server cannot be reached. Is gantry serve running?', null);
  }
  const text = await res.text();
  if (!res.ok) {
    let body: ApiErrorBody | null = null;
    try {
      body = JSON.parse(text) as ApiErrorBody;
    } catch {
      body = null;
    }
    throw new ApiError(res.status, body?.error?.code ?? String(res.status), body?.error?.message ?? (text || `HTTP ${res.status}`), body);
  }
  return text;
}
