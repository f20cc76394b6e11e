import { useState } from 'react';
import { api, ApiError, setToken } from '../api/client';
import { Logo } from '../components/icons';
import { t as tr, tNodes, useT } from '../i18n';

export function LoginPage() {
  const t = useT();
  const [token, setValue] = useState('');
  const [error, setError] = useState<string | null>(() => {
    const rejected = sessionStorage.getItem('gantry.rejected');
    sessionStorage.removeItem('gantry.rejected');
    return rejected ? tr('login.rejected') : null;
  });
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const given = token.trim();
    if (!given) return;
    setBusy(true);
    setError(null);
    try {
      await api('/pipelines', { token: given });
      setToken(given);
    } catch (err) {
      const e2 = err as ApiError;
      setError(e2.status === 401 || e2.status === 403 ? t('login.notAccepted') : e2.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="login">
      <form className="card" onSubmit={submit}>
        <div className="brand">
          <Logo width={34} height={34} />
          Gantry
        </div>
        <p>
          {t('login.intro1')} <code>gantry serve</code> {t('login.intro2')} <code>gantry token create --read-only</code>.
        </p>
        <div className={`field ${error ? 'invalid' : ''}`}>
          <label htmlFor="token">{t('login.token')}</label>
          <input id="token" name="token" type="password" autoComplete="off" autoFocus value={token} onChange={(e) => setValue(e.target.value)} placeholder={t('login.placeholder')} />
          {error && <div className="err">{error}</div>}
        </div>
        <button className={`btn primary ${busy ? 'busy' : ''}`} type="submit" disabled={!token.trim() || busy} style={{ width: '100%', justifyContent: 'center', height: 38 }}>
          {t('login.signIn')}
        </button>
        <p className="small muted" style={{ marginBottom: 0 }}>
          {tNodes('login.storage', { header: <code>Authorization: Bearer</code> })}
        </p>
      </form>
    </div>
  );
}
