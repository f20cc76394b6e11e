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
import { t as tr, useT } from '../i18n';
import type { AuditEntry, TokenRole, TokenRow } from '../model/access';
import { auditOutcome, auditWhat, kRoleMeaning, revokeLines } from '../model/access';

const kRoleTag: Record<TokenRole, string> = { admin: 'tag danger', editor: 'tag accent', viewer: 'tag' };

export function TokensTable({ tokens, self, onRevoke }: { tokens: TokenRow[] | undefined; self: string | null; onRevoke: (t: TokenRow) => void }) {
  const admins = tokens?.filter((t) => t.role === 'admin').length ?? 0;
  return (
    <table className="table" data-testid="tokens-table">
      <thead>
        <tr>
          <th>{tr('access.colName')}</th>
          <th>{tr('access.colRole')}</th>
          <th>{tr('access.colCreated')}</th>
          <th>{tr('access.colLastUsed')}</th>
          <th style={{ textAlign: 'right' }}>{tr('access.colActions')}</th>
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
                {self === t.name && <span className="small muted">{tr('access.you')}</span>}
              </td>
              <td>
                <span className={kRoleTag[t.role]} title={kRoleMeaning[t.role]}>
                  {t.role}
                </span>
              </td>
              <td>{fmtShort(t.created)}</td>
              <td>{t.lastUsed ? fmtShort(t.lastUsed) : <span className="muted">{tr('access.never')}</span>}</td>
              <td style={{ textAlign: 'right' }}>
                <button className="btn sm danger" onClick={() => onRevoke(t)} disabled={last} title={last ? tr('access.onlyAdmin') : tr('access.revokeName', { name: t.name })} data-testid={`revoke-${t.name}`}>
                  {tr('access.revoke')}
                </button>
              </td>
            </tr>
          );
        })}
        {tokens?.length === 0 && (
          <tr>
            <td colSpan={5} className="muted">
              {tr('access.noTokens')}
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
          <th title={tr('access.whenTitle')}>{tr('access.when')}</th>
          <th>{tr('access.who')}</th>
          <th>{tr('access.what')}</th>
          <th>{tr('access.result')}</th>
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
              {tr('access.nothing')}
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
      title={tr('access.revokeQ', { name: token.name })}
      onClose={onClose}
      footer={
        <>
          <button className="btn" onClick={onClose} disabled={busy}>
            {tr('access.keep')}
          </button>
          <button className="btn danger" onClick={onConfirm} disabled={busy} data-testid="confirm-revoke">
            {busy ? tr('access.revoking') : tr('access.revokeToken')}
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
  const t = useT();
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
        <Banner kind="info">{t('access.adminOnly', { role })}</Banner>
      </div>
    );

  const confirmRevoke = async () => {
    if (!revoking) return;
    setBusy(true);
    try {
      await revokeToken(revoking.name);
      toast('ok', t('access.revoked', { name: revoking.name }));
      const wasSelf = revoking.name === self;
      setRevoking(null);
      if (wasSelf) {
        setToken(null);
        return;
      }
      void tokens.reload();
      void loadAudit(null);
    } catch (e) {
      toast('error', t('access.revokeFailed', { name: revoking.name, message: (e as Error).message }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>{t('access.title')}</h1>
          <div className="sub">{t('access.sub')}</div>
        </div>
        <div className="actions">
          <button
            className="btn"
            onClick={() => {
              void tokens.reload();
              void loadAudit(null);
            }}
          >
            {t('common.refresh')}
          </button>
        </div>
      </div>

      {tokens.error && <Banner>{t('access.tokensFailed', { message: tokens.error.message })}</Banner>}
      <div className="card" style={{ marginBottom: 16 }}>
        <div className="card-head">
          <h2>{t('access.tokens')}</h2>
          <span className="small muted">
            admin: {kRoleMeaning.admin} · editor: {kRoleMeaning.editor} · viewer: {kRoleMeaning.viewer}
          </span>
        </div>
        <TokensTable tokens={tokens.data} self={self} onRevoke={setRevoking} />
      </div>

      {auditError && <Banner>{t('access.auditFailed', { message: auditError })}</Banner>}
      <div className="card">
        <div className="card-head">
          <h2>{t('access.audit')}</h2>
          <span className="small muted">{t('access.auditSub')}</span>
        </div>
        <AuditTable entries={audit?.entries} />
        {audit?.next && (
          <div style={{ padding: 12, textAlign: 'center' }}>
            <button className="btn sm" onClick={() => void loadAudit(audit.next)} data-testid="audit-older">
              {t('access.older')}
            </button>
          </div>
        )}
      </div>
      {revoking && <RevokeDialog token={revoking} self={self} busy={busy} onConfirm={() => void confirmRevoke()} onClose={() => setRevoking(null)} />}
    </div>
  );
}
