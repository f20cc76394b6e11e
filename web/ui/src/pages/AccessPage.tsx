// Access (admin tokens only): the people's tokens, with Revoke behind a confirmation, and the
// audit log of every state-changing request (who, what, when, how it ended), newest first,
// older pages on demand. Tokens are made on the server machine (`gantry token create`): a token
// is shown once, and this page never sees one.
import { useCallback, useEffect, useState } from 'react';
import { fetchAudit, fetchTokens, kTokensKey, revokeToken } from '../api/access';
import { setToken } from '../api/client';
import { useResource } from '../api/resource';
import { useIsAdmin, useSession } from '../api/session';
import { Banner, Modal, SkeletonRows, useToast } from '../components/ui';
import { fmtShort } from '../format';
import type { AuditEntry, TokenRole, TokenRow } from '../model/access';
import { auditOutcome, auditWhat, kRoleMeaning, revokeLines } from '../model/access';

const kRoleTag: Record<TokenRole, string> = { admin: 'tag danger', editor: 'tag accent', viewer: 'tag' };

export function TokensTable({ tokens, self, onRevoke }: { tokens: TokenRow[] | undefined; self: string | null; onRevoke: (t: TokenRow) => void }) {
  const admins = tokens?.filter((t) => t.role === 'admin').length ?? 0;
  return (
    <table className="table" data-testid="tokens-table">
      <thead>
        <tr>
          <th>Name</th>
          <th>Role</th>
          <th>Created</th>
          <th>Last used</th>
          <th style={{ textAlign: 'right' }}>Actions</th>
        </tr>
      </thead>
      <tbody>
        {!tokens && <SkeletonRows rows={3} cols={5} />}
        {tokens?.map((t) => {
          const last = t.role === 'admin' && admins === 1;
          return (
            <tr key={t.id} data-token={t.name}>
              <td className="name">
                {t.name}
                {self === t.name && <span className="small muted"> (you)</span>}
              </td>
              <td>
                <span className={kRoleTag[t.role]} title={kRoleMeaning[t.role]}>
                  {t.role}
                </span>
              </td>
              <td>{fmtShort(t.created)}</td>
              <td>{t.lastUsed ? fmtShort(t.lastUsed) : <span className="muted">never</span>}</td>
              <td style={{ textAlign: 'right' }}>
                <button className="btn sm danger" onClick={() => onRevoke(t)} disabled={last} title={last ? 'The only admin token: create another admin token first (gantry token create --role admin)' : `Revoke ${t.name}`} data-testid={`revoke-${t.name}`}>
                  Revoke
                </button>
              </td>
            </tr>
          );
        })}
        {tokens?.length === 0 && (
          <tr>
            <td colSpan={5} className="muted">
              No tokens.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function AuditTable({ entries }: { entries: AuditEntry[] | undefined }) {
  return (
    <table className="table" data-testid="audit-table">
      <thead>
        <tr>
          <th title="The wall clock of the server, not its simulated clock: when a person acted">When (UTC, wall clock)</th>
          <th>Who</th>
          <th>What</th>
          <th>Result</th>
        </tr>
      </thead>
      <tbody>
        {!entries && <SkeletonRows rows={5} cols={4} />}
        {entries?.map((e) => {
          const outcome = auditOutcome(e.status);
          return (
            <tr key={e.id} data-audit={e.id}>
              <td title={e.at}>{fmtShort(e.at)}</td>
              <td>
                {e.token} <span className="small muted">{e.role}</span>
              </td>
              <td>
                <code>{auditWhat(e)}</code>
              </td>
              <td>
                <span className={outcome.kind === 'ok' ? 'tag accent' : outcome.kind === 'refused' ? 'tag warn' : 'tag danger'} data-status={e.status}>
                  {outcome.label}
                </span>
              </td>
            </tr>
          );
        })}
        {entries?.length === 0 && (
          <tr>
            <td colSpan={4} className="muted">
              Nothing recorded yet: every request that changes something (apply, trigger, pause, rerun, revoke, …) appears here.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function RevokeDialog({ token, self, busy, onConfirm, onClose }: { token: TokenRow; self: string | null; busy: boolean; onConfirm: () => void; onClose: () => void }) {
  return (
    <Modal
      title={`Revoke ${token.name}?`}
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            Keep it
          </button>
          <button className="btn danger" onClick={onConfirm} disabled={busy} data-testid="confirm-revoke">
            {busy ? 'Revoking…' : 'Revoke the token'}
          </button>
        </>
      }
    >
      <div data-testid="revoke-dialog">
        {revokeLines(token, self).map((l) => (
          <p key={l}>{l}</p>
        ))}
      </div>
    </Modal>
  );
}

export default function AccessPage() {
  const isAdmin = useIsAdmin();
  const { role, name: self } = useSession();
  const tokens = useResource<TokenRow[]>(isAdmin ? kTokensKey : null, { fetcher: fetchTokens });
  const toast = useToast();
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [busy, setBusy] = useState(false);
  const [audit, setAudit] = useState<{ entries: AuditEntry[]; next: string | null } | null>(null);
  const [auditError, setAuditError] = useState<string | null>(null);

  const loadAudit = useCallback(async (before: string | null) => {
    try {
      const page = await fetchAudit(before);
      setAudit((old) => (before && old ? { entries: [...old.entries, ...page.entries], next: page.next } : page));
      setAuditError(null);
    } catch (e) {
      setAuditError((e as Error).message);
    }
  }, []);
  useEffect(() => {
    if (isAdmin) void loadAudit(null);
  }, [isAdmin, loadAudit]);

  if (role !== null && !isAdmin)
    return (
      <div className="page">
        <Banner kind="info">Only an admin token may see the tokens and the audit log; this token is {role}.</Banner>
      </div>
    );

  const confirmRevoke = async () => {
    if (!revoking) return;
    setBusy(true);
    try {
      await revokeToken(revoking.name);
      toast('ok', `Token ${revoking.name} revoked`);
      const wasSelf = revoking.name === self;
      setRevoking(null);
      if (wasSelf) {
        setToken(null);
        return;
      }
      void tokens.reload();
      void loadAudit(null);
    } catch (e) {
      toast('error', `Could not revoke ${revoking.name}: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Access</h1>
          <div className="sub">Who may use this server, and what they did. New tokens: gantry token create --name NAME --role admin|editor|viewer on the server machine.</div>
        </div>
        <div className="actions">
          <button
            className="btn"
            onClick={() => {
              void tokens.reload();
              void loadAudit(null);
            }}
          >
            Refresh
          </button>
        </div>
      </div>

      {tokens.error && <Banner>Could not load the tokens: {tokens.error.message}</Banner>}
      <div className="card" style={{ marginBottom: 16 }}>
        <div className="card-head">
          <h2>Tokens</h2>
          <span className="small muted">
            admin: {kRoleMeaning.admin} · editor: {kRoleMeaning.editor} · viewer: {kRoleMeaning.viewer}
          </span>
        </div>
        <TokensTable tokens={tokens.data} self={self} onRevoke={setRevoking} />
      </div>

      {auditError && <Banner>Could not load the audit log: {auditError}</Banner>}
      <div className="card">
        <div className="card-head">
          <h2>Audit log</h2>
          <span className="small muted">every request that changes something, newest first; the newest 100,000 are kept</span>
        </div>
        <AuditTable entries={audit?.entries} />
        {audit?.next && (
          <div style={{ padding: 12, textAlign: 'center' }}>
            <button className="btn sm" onClick={() => void loadAudit(audit.next)} data-testid="audit-older">
              Older entries
            </button>
          </div>
        )}
      </div>
      {revoking && <RevokeDialog token={revoking} self={self} busy={busy} onConfirm={() => void confirmRevoke()} onClose={() => setRevoking(null)} />}
    </div>
  );
}
