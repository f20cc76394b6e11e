import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { getToken, onTokenChange, setToken } from './api/client';
import { connection } from './api/connection';
import { hub, useLiveStatus } from './api/events';
import { serverNow, useIsAdmin, useSession } from './api/session';
import { fmtShort } from './format';
import { IconAccess, IconCluster, IconLogout, IconPipelines, IconRuns, IconWhatIf, IconEditor, Logo } from './components/icons';
import { ServerProblemsBanner } from './components/ServerProblemsBanner';
import { StaleBanner } from './components/StaleBanner';
import { ToastProvider } from './components/ui';
import { useLocale, useT, type Locale } from './i18n';
import { LoginPage } from './pages/LoginPage';
import { PipelinesPage } from './pages/PipelinesPage';
import { href, navigate, useRoute } from './router';

// The editor (React Flow, dagre, YAML) and the chart pages (ECharts) load on first use.
const EditorPage = lazy(() => import('./editor/EditorPage'));
const RunsPage = lazy(() => import('./pages/RunsPage'));
const ClusterPage = lazy(() => import('./pages/ClusterPage'));
const WhatIfPage = lazy(() => import('./pages/WhatIfPage'));
const AccessPage = lazy(() => import('./pages/AccessPage'));

function useToken() {
  return useSyncExternalStore(onTokenChange, getToken);
}

function PageFallback() {
  return (
    <div className="page">
      <div className="page-head">
        <div className="skeleton" style={{ width: 220, height: 24 }} />
      </div>
      <div className="card" style={{ height: 320 }}>
        <div className="skeleton" style={{ margin: 16, height: 280, width: 'calc(100% - 32px)' }} />
      </div>
    </div>
  );
}

// A server running faster than the wall clock (gantry serve --speed 60) says so, with its
// time: every time on the pages is the server's.
function ServerClock() {
  const { clock } = useSession();
  // Drawn again at once when contact is lost or back: the time shown then stops, or runs again.
  useSyncExternalStore(
    (f) => connection.subscribe(f),
    () => connection.state,
  );
  const [, tick] = useState(0);
  const t = useT();
  const fast = !!clock && clock.speed !== 1;
  useEffect(() => {
    if (!fast) return;
    const id = window.setInterval(() => tick((x) => x + 1), 1000);
    return () => window.clearInterval(id);
  }, [fast]);
  if (!fast) return null;
  return (
    <span className="server-clock" title={t('nav.clockTitle', { speed: clock.speed })} data-testid="server-clock">
      <span className="txt">{fmtShort(new Date(serverNow()).toISOString())} UTC</span>
      <span className="tag">{clock.speed}×</span>
    </span>
  );
}

// English / 中文, each written in its own language so that either can be found; the choice is
// kept in local storage (i18n/locale.ts).
function LanguageSwitch() {
  const [locale, setLocale] = useLocale();
  const t = useT();
  const options: [Locale, string][] = [
    ['en', 'English'],
    ['zh-CN', '中文'],
  ];
  return (
    <div className="lang-switch" role="group" aria-label={t('nav.language')} data-testid="language-switch">
      {options.map(([l, label]) => (
        <button key={l} type="button" lang={l} aria-pressed={locale === l} className={locale === l ? 'on' : ''} data-locale={l} onClick={() => setLocale(l)}>
          {label}
        </button>
      ))}
    </div>
  );
}

function Nav({ section }: { section: string }) {
  const live = useLiveStatus();
  const isAdmin = useIsAdmin();
  const t = useT();
  // One live connection for the whole session, whichever page is open.
  useEffect(() => hub.on(() => {}), []);
  const items = [
    { id: 'pipelines', label: t('nav.pipelines'), icon: IconPipelines, to: href('pipelines') },
    { id: 'editor', label: t('nav.editor'), icon: IconEditor, to: href('editor') },
    { id: 'runs', label: t('nav.runs'), icon: IconRuns, to: href('runs') },
    { id: 'cluster', label: t('nav.cluster'), icon: IconCluster, to: href('cluster') },
    { id: 'whatif', label: t('nav.whatif'), icon: IconWhatIf, to: href('whatif') },
    // Tokens and the audit log: offered to admin tokens only (the server refuses the others).
    ...(isAdmin ? [{ id: 'access', label: t('nav.access'), icon: IconAccess, to: href('access') }] : []),
  ];
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        <Logo width={30} height={30} />
        <div>
          Gantry
          <small>{t('nav.tagline')}</small>
        </div>
      </div>
      {items.map((it) => (
        <a key={it.id} href={it.to} className={section === it.id ? 'active' : ''} data-nav={it.id} title={it.label}>
          <it.icon />
          <span>{it.label}</span>
        </a>
      ))}
      <div className="spacer" />
      <div className="foot">
        <ServerClock />
        <span className={`live live-${live}`} title={t('nav.liveTitle', { state: live })} data-live={live}>
          <i />
          <span className="txt">{live === 'live' ? t('nav.live') : live === 'connecting' ? t('nav.connecting') : t('nav.offline')}</span>
        </span>
        <button onClick={() => setToken(null)} title={t('nav.signOut')} data-testid="sign-out">
          <IconLogout width={14} height={14} style={{ verticalAlign: -2 }} />
          <span className="txt"> {t('nav.signOut')}</span>
        </button>
        {/* After Sign out: the browser test signs out with the footer's first button. */}
        <LanguageSwitch />
      </div>
    </nav>
  );
}

export function App() {
  const token = useToken();
  const route = useRoute();
  const [, force] = useState(0);
  useEffect(() => {
    if (route.path.length === 0) navigate(href('pipelines'), true);
  }, [route.path.length]);
  useEffect(() => onTokenChange(() => force((x) => x + 1)), []);

  if (!token) {
    return (
      <ToastProvider>
        <LoginPage />
      </ToastProvider>
    );
  }
  const [section = 'pipelines'] = route.path;
  let page: React.ReactNode;
  switch (section) {
    case 'editor':
      page = <EditorPage name={route.path[1] ?? null} />;
      break;
    case 'runs':
      page = <RunsPage pipeline={route.path[1] ?? null} address={route.query} />;
      break;
    case 'cluster':
      page = <ClusterPage />;
      break;
    case 'whatif':
      page = <WhatIfPage />;
      break;
    case 'access':
      page = <AccessPage />;
      break;
    default:
      page = <PipelinesPage />;
  }
  return (
    <ToastProvider>
      <div className={`shell ${section === 'editor' ? 'compact' : ''}`}>
        <Nav section={section} />
        <main className="main">
          <StaleBanner />
          <ServerProblemsBanner />
          <Suspense fallback={<PageFallback />}>{page}</Suspense>
        </main>
      </div>
    </ToastProvider>
  );
}
