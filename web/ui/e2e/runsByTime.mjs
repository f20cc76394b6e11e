// The Runs page by time range (issue #26 leftovers), for the browser test: a window of logical
// times typed in UTC is sent to the server (`GET .../runs?from=&to=`), kept in the address, paged
// ("Older runs") inside it; bad input is refused in the form and never sent; the state is sent
// too; Reset shows every run again; the page fits 1280x800. The runs are made through the REST
// API (a backfill and a trigger); the expected ones are worked out from the schedule. Waits are
// on DOM state and on the page's own requests.
import { callApi as call } from './api.mjs';

// Every hour from `first` to `last`, both included, as the server writes logical times.
function hourly(first, last) {
  const out = [];
  for (let t = Date.parse(first); t <= Date.parse(last); t += 3600e3) out.push(new Date(t).toISOString().replace('.000Z', 'Z'));
  return out;
}

const shownRuns = (page) => page.$$eval('.rgrid .head button[data-run]', (bs) => bs.map((b) => b.getAttribute('data-run')).sort());
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

export async function checkRunsByTime(page, { url, token, id, shot }) {
  const name = `hourly-${id}`;
  // Saved paused: the schedule makes no run of its own while the test looks.
  await call(url, token, 'POST', '/pipelines', `apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: ${name}}
spec:
  schedule: {cron: "0 * * * *", start: "2026-01-01T00:00:00Z"}
  tasks:
  - {name: load, image: registry.local/etl:1, simulate: {duration: 1m}}
`, 'application/yaml');
  // The hourly ticks of 2026-01-01 00:00 to 2026-01-02 11:00: 24 + 12 = 36 runs; and one manual
  // run at the server's now (November 2026), outside the window below.
  const backfill = await call(url, token, 'POST', `/pipelines/${name}/backfill`, JSON.stringify({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T11:00:00Z' }));
  if (backfill.created !== 36) throw new Error(`the backfill created ${backfill.created} runs, not 36`);
  const manual = await call(url, token, 'POST', `/pipelines/${name}/trigger`, '');

  // The window 2026-01-01 02:00 to 2026-01-02 09:00 UTC, both ends included: the ticks 02:00 to
  // 23:00 of the 1st (22) and 00:00 to 09:00 of the 2nd (10) = 32 runs, more than a page (25).
  const expected = hourly('2026-01-01T02:00:00Z', '2026-01-02T09:00:00Z');
  if (expected.length !== 32) throw new Error('the expected window is not 32 hours');

  const asked = [];
  const onRequest = (r) => {
    if (r.url().includes(`/api/v1/pipelines/${name}/runs?`)) asked.push(decodeURIComponent(r.url()));
  };
  page.on('request', onRequest);
  try {
    await page.goto(`${url}/#/runs/${encodeURIComponent(name)}`);
    await page.waitForSelector(`.rgrid .head button[data-run="${manual.logicalTime}"]`);

    // Bad input is said in the form and never sent: an end before the start, then a time that
    // cannot be read.
    const sentBefore = asked.length;
    await page.fill('[data-testid=runs-from]', '2026-01-01 02:00');
    await page.fill('[data-testid=runs-to]', '2026-01-01 01:00');
    await page.click('[data-testid=runs-range-apply]');
    await page.waitForSelector('[data-testid=runs-range-error][data-field=to]:has-text("is before")');
    await page.fill('[data-testid=runs-to]', 'tomorrow');
    await page.press('[data-testid=runs-to]', 'Enter');
    await page.waitForSelector('[data-testid=runs-range-error][data-field=to]:has-text("\\"tomorrow\\" is not a time")');
    if (asked.slice(sentBefore).some((u) => u.includes('from='))) throw new Error(`a refused window was sent: ${asked.slice(sentBefore)}`);
    if ((await page.evaluate(() => location.hash)).includes('from=')) throw new Error('a refused window went into the address');

    // A good window: the first page of it (25 runs, the newest), then the older runs of it.
    await page.fill('[data-testid=runs-to]', '2026-01-02 09:00');
    await page.click('[data-testid=runs-range-apply]');
    await page.waitForFunction(() => location.hash.includes('from=2026-01-01T02%3A00%3A00Z') && location.hash.includes('to=2026-01-02T09%3A00%3A00Z'));
    await page.waitForFunction(() => document.querySelectorAll('.rgrid .head button[data-run]').length === 25);
    if (!asked.some((u) => u.includes('from=2026-01-01T02:00:00Z') && u.includes('to=2026-01-02T09:00:00Z') && !u.includes('after=')))
      throw new Error(`the window was not sent to the server: ${asked.join(' ')}`);
    // The newest 25 of the window: 2026-01-01T09:00 to 2026-01-02T09:00.
    if (!same(await shownRuns(page), expected.slice(-25))) throw new Error(`the first page of the window: ${await shownRuns(page)}`);
    await page.click('[data-testid=runs-older]');
    await page.waitForFunction(() => document.querySelectorAll('.rgrid .head button[data-run]').length === 32);
    if (!asked.some((u) => u.includes('from=2026-01-01T02:00:00Z') && u.includes('after='))) throw new Error('the older runs were not asked inside the window');
    const shown = await shownRuns(page);
    if (!same(shown, expected)) throw new Error(`the window shows ${shown.length} runs, not exactly the 32 of 02:00 to 09:00 the next day: ${shown}`);
    if ((await page.$$('[data-testid=run-list] tbody tr')).length !== 32) throw new Error('the run list does not have the 32 runs of the window');
    await page.waitForSelector('[data-testid=runs-older]', { state: 'detached' });

    // At 1280x800 the page still fits: nothing wider than the window.
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1280, height: 800 });
    const spill = await page.evaluate(() => {
      const p = document.querySelector('.page');
      const filter = document.querySelector('[data-testid=runs-filter]').getBoundingClientRect();
      const detail = document.querySelector('[data-testid=run-detail]')?.getBoundingClientRect();
      return { page: p.scrollWidth - p.clientWidth, overlap: detail ? filter.right - detail.left : 0 };
    });
    if (spill.page > 0 || spill.overlap > 0) throw new Error(`the runs page does not fit 1280x800: ${JSON.stringify(spill)}`);
    await shot('runs-time-range');
    await page.setViewportSize(size);

    // A reload shows the same window (from the address), its fields filled in.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('.rgrid .head button[data-run]').length === 25);
    if ((await page.inputValue('[data-testid=runs-from]')) !== '2026-01-01 02:00' || (await page.inputValue('[data-testid=runs-to]')) !== '2026-01-02 09:00')
      throw new Error('the window did not survive a reload');

    // The state goes to the server with the window: none of these runs failed.
    await page.selectOption('[data-testid=runs-state-filter]', 'failed');
    await page.waitForSelector('[data-testid=runs-none-match]');
    if (!asked.some((u) => u.includes('state=failed') && u.includes('from=2026-01-01T02:00:00Z'))) throw new Error('the state was not sent with the window');

    // Reset: every run again, the manual one (outside the window) among them.
    await page.click('[data-testid=runs-filter-reset]');
    await page.waitForSelector(`.rgrid .head button[data-run="${manual.logicalTime}"]`);
    if (/[?&](from|to|state)=/.test(await page.evaluate(() => location.hash))) throw new Error('Reset left a filter in the address');
    if ((await page.inputValue('[data-testid=runs-from]')) !== '') throw new Error('Reset left the window in its field');
  } finally {
    page.off('request', onRequest);
  }
}
