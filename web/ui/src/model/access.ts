// The tokens and the audit log as the Access page shows them (GET /tokens, GET /audit,
// web/API.md "Tokens and audit"): pure functions, no React, so the tests cover them.

import { t } from '../i18n/t';

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
  if (status >= 200 && status < 300) return { label: t('access.done', { status }), kind: 'ok' };
  if (status === 403) return { label: t('access.refused'), kind: 'refused' };
  return { label: t('access.failed', { status }), kind: 'failed' };
}

// What revoking `t` does, for the confirmation dialog. `self`: the signed-in token's name.
export function revokeLines(token: TokenRow, self: string | null): string[] {
  const lines = [t('access.revokeLine1', { role: token.role, name: token.name }), t('access.revokeLine2')];
  if (self !== null && self === token.name) lines.push(t('access.revokeSelf'));
  return lines;
}

// What each role may do, as the page's legend says it (the server's rule, api_server.hpp), in
// the page's language when read.
export const kRoleMeaning: Record<TokenRole, string> = {
  get admin() {
    return t('access.roleAdmin');
  },
  get editor() {
    return t('access.roleEditor');
  },
  get viewer() {
    return t('access.roleViewer');
  },
};
