// The English strings of the app, by key. The reference: zh-CN.ts has the same keys.
// Plurals are `x_one` / `x_other` (t('x', { count })). `{name}` is a parameter.

export const en = {
  // navigation
  'nav.pipelines': 'Pipelines',
  'nav.editor': 'Editor',
  'nav.runs': 'Runs',
  'nav.cluster': 'Cluster',
  'nav.whatif': 'What-if',
  'nav.access': 'Access',
  'nav.tagline': 'ML platform orchestrator',
  'nav.live': 'Live',
  'nav.connecting': 'Connecting…',
  'nav.offline': 'Offline',
  'nav.liveTitle': 'Live updates (Server-Sent Events): {state}',
  'nav.signOut': 'Sign out',
  'nav.language': 'Language',
  'nav.clockTitle': "The server's simulated clock runs {speed}× the wall clock; every time shown is the server's.",

  // login
  'login.intro1': 'Sign in with an API token.',
  'login.intro2': 'writes the admin token once, on its first start, to a file beside its database (mode 0600) and prints that file\'s path in its start-up message. Viewer tokens come from',
  'login.rejected': 'The server no longer accepts the saved token (it was revoked, or the server has a new database). Sign in again.',
  'login.notAccepted': 'This token was not accepted. Check that you copied the whole line of the token file.',
  'login.token': 'API token',
  'login.placeholder': 'Paste the token',
  'login.signIn': 'Sign in',
  'login.storage': 'The token stays in this browser (local storage) and is sent as {header} with every request.',

  // banners
  'stale.lost': 'Lost contact with the server at {at} UTC — retrying; data shown is from then.',
  'stale.stopped': '{cause}. Countdowns and durations are stopped until the server answers again.',

  // common
  'common.close': 'Close',
  'common.dismiss': 'Dismiss',
  'common.cancel': 'Cancel',

  // relative times
  'rel.now': 'now',
  'rel.in': 'in {n} {unit}',
  'rel.ago': '{n} {unit} ago',
  'unit.s': 's',
  'unit.min': 'min',
  'unit.h': 'h',
  'unit.d': 'd',

  // plural example used by tests and pages
  'count.ticks_one': '{count} tick',
  'count.ticks_other': '{count} ticks',
  'count.runs_one': '{count} run',
  'count.runs_other': '{count} runs',
};
