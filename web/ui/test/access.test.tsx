// The Access page's parts as HTML (react-dom/server, no browser): the tokens table (role tags,
// never-used tokens, the only admin's Revoke disabled with why), the audit log's rows (who,
// what with its target filled in, when, how it ended), the revoke dialog's text, and the role
// word of whoami read safely.

import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseRole } from '../src/api/session';
import type { AuditEntry, TokenRow } from '../src/model/access';
import { auditOutcome, auditWhat, revokeLines } from '../src/model/access';
import { AuditTable, RevokeDialog, TokensTable } from '../src/pages/AccessPage';

const tokens: TokenRow[] = [
  { id: 1, name: 'admin (first start)', role: 'admin', created: '2026-11-28T08:00:00Z', lastUsed: '2026-11-28T09:00:00Z' },
  { id: 2, name: 'ana', role: 'editor', created: '2026-11-28T08:05:00Z', lastUsed: null },
  { id: 3, name: 'dashboard', role: 'viewer', created: '2026-11-28T08:06:00Z', lastUsed: '2026-11-28T09:01:00Z' },
];

const trigger: AuditEntry = {
  id: 7,
  at: '2026-11-28T09:02:03Z',
  token: 'ana',
  role: 'editor',
  method: 'POST',
  route: '/api/v1/pipelines/{name}/trigger',
  path: '/api/v1/pipelines/nightly/trigger',
  target: { name: 'nightly' },
  status: 201,
};
const refused: AuditEntry = { ...trigger, id: 8, token: 'dashboard', role: 'viewer', method: 'DELETE', route: '/api/v1/pipelines/{name}', path: '/api/v1/pipelines/nightly', status: 403 };
const failed: AuditEntry = {
  ...trigger,
  id: 9,
  route: '/api/v1/pipelines/{name}/runs/{logicalTime}/rerun',
  target: { name: 'etl', logicalTime: '2026-11-28T00:00:00Z' },
  status: 404,
};

const rowOf = (html: string, attr: string) => {
  const at = html.indexOf(attr);
  expect(at).toBeGreaterThan(-1);
  return html.slice(at, html.indexOf('</tr>', at));
};

describe('the tokens table', () => {
  const html = renderToStaticMarkup(<TokensTable tokens={tokens} self="admin (first start)" onRevoke={() => {}} />);
  it('shows each token with its role and last use, never a token', () => {
    expect(rowOf(html, 'data-token="ana"')).toContain('class="tag accent"');
    expect(rowOf(html, 'data-token="ana"')).toContain('>editor</span>');
    expect(rowOf(html, 'data-token="ana"')).toContain('never');
    expect(rowOf(html, 'data-token="dashboard"')).toContain('>viewer</span>');
    expect(html).not.toContain('gty_');
  });
  it('marks the signed-in token and keeps the only admin token', () => {
    const admin = rowOf(html, 'data-token="admin (first start)"');
    expect(admin).toContain('(you)');
    expect(admin).toMatch(/<button[^>]*disabled=""[^>]*title="The only admin token/);
    expect(rowOf(html, 'data-token="ana"')).not.toContain('disabled');
  });
  it('shows skeleton rows while loading', () => {
    expect(renderToStaticMarkup(<TokensTable tokens={undefined} self={null} onRevoke={() => {}} />)).toContain('skeleton-row');
  });
});

describe('the audit log', () => {
  it('says what each entry did, its target filled in', () => {
    expect(auditWhat(trigger)).toBe('POST /pipelines/nightly/trigger');
    expect(auditWhat(failed)).toBe('POST /pipelines/etl/runs/2026-11-28T00:00:00Z/rerun');
    // A parameter missing from the target stays as the pattern says.
    expect(auditWhat({ ...trigger, target: {} })).toBe('POST /pipelines/{name}/trigger');
  });
  it('tells done, refused and failed apart', () => {
    expect(auditOutcome(201)).toEqual({ label: '201 done', kind: 'ok' });
    expect(auditOutcome(403)).toEqual({ label: '403 refused (role)', kind: 'refused' });
    expect(auditOutcome(404)).toEqual({ label: '404 failed', kind: 'failed' });
  });
  it('renders who, what, when and the result', () => {
    const html = renderToStaticMarkup(<AuditTable entries={[trigger, refused, failed]} />);
    const t = rowOf(html, 'data-audit="7"');
    expect(t).toContain('ana <span class="small muted">editor</span>');
    expect(t).toContain('<code>POST /pipelines/nightly/trigger</code>');
    expect(t).toContain('title="2026-11-28T09:02:03Z"');
    expect(t).toContain('28 Nov, 09:02');
    expect(t).toContain('data-status="201"');
    const r = rowOf(html, 'data-audit="8"');
    expect(r).toContain('class="tag warn"');
    expect(r).toContain('403 refused (role)');
    expect(rowOf(html, 'data-audit="9"')).toContain('class="tag danger"');
  });
  it('says what the log holds when it is empty', () => {
    expect(renderToStaticMarkup(<AuditTable entries={[]} />)).toContain('Nothing recorded yet');
  });
});

describe('revoking', () => {
  it('says the token stops at its next request, and warns about one\'s own', () => {
    const other = revokeLines(tokens[1], 'admin (first start)');
    expect(other[0]).toBe('The editor token "ana" stops working at its next request: the server keeps no cache of tokens.');
    expect(other).toHaveLength(2);
    expect(revokeLines(tokens[0], 'admin (first start)')[2]).toContain('signs you out');
  });
  it('renders the dialog with its confirmation', () => {
    const html = renderToStaticMarkup(<RevokeDialog token={tokens[1]} self={null} busy={false} onConfirm={() => {}} onClose={() => {}} />);
    expect(html).toContain('Revoke ana?');
    expect(html).toContain('data-testid="confirm-revoke"');
    expect(html).toContain('stops working at its next request');
  });
});

describe('the role of whoami', () => {
  it('keeps admin and editor and takes anything else as viewer', () => {
    expect(parseRole('admin')).toBe('admin');
    expect(parseRole('editor')).toBe('editor');
    expect(parseRole('viewer')).toBe('viewer');
    expect(parseRole('sweep-worker')).toBe('viewer');
    expect(parseRole(undefined)).toBe('viewer');
  });
});
