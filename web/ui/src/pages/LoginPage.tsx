import { useState } from 'react';
import { api, ApiError, setToken } from '../api/client';
import { Logo } from '../components/icons';

export function LoginPage() {
  const [token, setValue] = useState('');
  const [error, setError] = useState<string | null>(() => {
    const rejected = sessionStorage.getItem('gantry.rejected');
    sessionStorage.removeItem('gantry.rejected');
    return rejected ? 'The server no longer accepts the saved token (it was revoked, or the server has a new database). Sign in again.' : null;
  });
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const t = token.trim();
    if (!t) return;
    setBusy(true);
    setError(null);
    try {
      await api('/pipelines', { token: t });
      setToken(t);
    } catch (err) {
      const e2 = err as ApiError;
      setError(e2.status === 401 || e2.status === 403 ? 'This token was not accepted. Check that you copied the whole line of the token file.' : e2.message);
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
          Sign in with an API token. <code>gantry serve</code> writes the admin token once, on its first start, to a file beside its
          database (mode 0600) and prints that file's path in its start-up message. Viewer tokens come from{' '}
          <code>gantry token create --read-only</code>.
        </p>
        <div className={`field ${error ? 'invalid' : ''}`}>
          <label htmlFor="token">API token</label>
          <input id="token" name="token" type="password" autoComplete="off" autoFocus value={token} onChange={(e) => setValue(e.target.value)} placeholder="Paste the token" />
          {error && <div className="err">{error}</div>}
        </div>
        <button className={`btn primary ${busy ? 'busy' : ''}`} type="submit" disabled={!token.trim() || busy} style={{ width: '100%', justifyContent: 'center', height: 38 }}>
          Sign in
        </button>
        <p className="small muted" style={{ marginBottom: 0 }}>
          The token stays in this browser (local storage) and is sent as <code>Authorization: Bearer</code> with every request.
        </p>
      </form>
    </div>
  );
}
