// The admin's routes of access control (web/API.md, "Tokens and audit").
import type { AuditPage, TokenRow } from '../model/access';
import { api, enc } from './client';

export const kTokensKey = '/tokens';

export async function fetchTokens(): Promise<TokenRow[]> {
  return (await api<{ tokens: TokenRow[] }>(kTokensKey)).tokens;
}

export function revokeToken(name: string): Promise<{ revoked: TokenRow }> {
  return api<{ revoked: TokenRow }>(`/tokens/${enc(name)}`, { method: 'DELETE' });
}

export function fetchAudit(before: string | null, limit = 50): Promise<AuditPage> {
  return api<AuditPage>(`/audit?limit=${limit}${before ? `&before=${enc(before)}` : ''}`);
}
