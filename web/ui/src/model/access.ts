// The tokens and the audit log as the Access page shows them (GET /tokens, GET /audit,
// web/API.md "Tokens and audit"): pure functions, no React, so the tests cover them.

export type TokenRole = 'admin' | 'editor' | 'viewer';

export interface TokenRow {
  id: number;
  name: string;
  role: TokenRole;
  created: string;
  lastUsed: string | null; // recorded at most once a minute; null: never used
}

export interface AuditEntry {
  id: number;
  at: string;
  token: string;
  role: TokenRole;
  method: string;
  route: string; // "/api/v1/pipelines/{name}/trigger"
  path: string;
  target: Record<string, string>; // the route's parameters
  status: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  next: string | null; // ?before= of the next, older page
}

// What an entry did, in words: the route without /api/v1 and with its parameters filled in
// ("POST /pipelines/nightly/trigger"), so the table reads like the request.
export function auditWhat(e: AuditEntry): string {
  const route = e.route.replace(/^\/api\/v1/, '');
  const filled = route.replace(/\{([^}]+)\}/g, (whole, key: string) => e.target[key] ?? whole);
  return `${e.method} ${filled}`;
}

// How an entry ended: done (2xx), refused for the token's role (403) or failed otherwise.
export function auditOutcome(status: number): { label: string; kind: 'ok' | 'refused' | 'failed' } {
  if (status >= 200 && status < 300) return { label: `${status} done`, kind: 'ok' };
  if (status === 403) return { label: '403 refused (role)', kind: 'refused' };
  return { label: `${status} failed`, kind: 'failed' };
}

// What revoking `t` does, for the confirmation dialog. `self`: the signed-in token's name.
export function revokeLines(t: TokenRow, self: string | null): string[] {
  const lines = [`The ${t.role} token "${t.name}" stops working at its next request: the server keeps no cache of tokens.`, 'A revoked token cannot be restored: make a new one with gantry token create on the server machine.'];
  if (self !== null && self === t.name) lines.push('This is the token you are signed in with: this page signs you out.');
  return lines;
}

// What each role may do, as the page's legend says it (the server's rule, api_server.hpp).
export const kRoleMeaning: Record<TokenRole, string> = {
  admin: 'everything, and alone the tokens and the audit log',
  editor: 'create and change pipelines, trigger, rerun, mark, pause; run simulations, sweeps and plans',
  viewer: 'read only',
};
