// The browser test's outage step (issue #26 §8, "the page tells the truth"): the server is
// stopped under the open app, every page then says that its data is stale and since when, the
// server is started again on the same port and database, and the pages recover by themselves.
//
// tools/web-e2e.sh passes what this needs: GANTRY_SERVER_PID (the server to stop),
// GANTRY_BIN and GANTRY_SERVE_ARGS (a JSON array: how it was started, `--listen 127.0.0.1:0`
// included, which becomes the port it had) and GANTRY_RESTARTED_PID_FILE (where the new
// server's process id goes: the script stops that one at the end). Without them the step is
// skipped (a server started by hand). Every wait is on a condition, with a timeout.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const outageConfigured = () => !!(process.env.GANTRY_SERVER_PID && process.env.GANTRY_BIN && process.env.GANTRY_SERVE_ARGS && process.env.GANTRY_RESTARTED_PID_FILE);

// True while a process with this id exists (kill with signal 0 checks without signalling).
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what, test, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The console errors a browser logs for requests to a stopped server; others still fail the test.
const kRefused = /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|ERR_CONNECTION_CLOSED|Failed to load resource/;

export async function checkOutage(page, { url, errors, pipeline, shot }) {
  const pid = Number(process.env.GANTRY_SERVER_PID);
  const pidFile = process.env.GANTRY_RESTARTED_PID_FILE;
  const firstError = errors.length;

  // The editor, once, so that its pipeline is in the app's cache when the server goes.
  await page.click('[data-nav=editor]');
  await page.waitForSelector('[data-testid=validation][data-valid=true]');
  await page.click('[data-nav=pipelines]');
  await page.waitForSelector(`tr[data-pipeline="${pipeline}"]`);
  if (await page.locator('[data-testid=stale-banner]').count()) throw new Error('a stale-data banner while the server is up');
  process.kill(pid, 'SIGTERM');
  await until(`gantry serve (pid ${pid}) to stop`, () => !alive(pid), 60000);

  const banner = page.locator('[data-testid=stale-banner]');
  await banner.waitFor({ timeout: 30000 });
  const text = await banner.textContent();
  // The server's clock in the navigation stopped at the loss (at --speed 600 its minutes change
  // ten times a second of wall time while it runs).
  const clock = page.locator('[data-testid=server-clock] .txt');
  const stoppedAt = (await clock.count()) ? await clock.textContent() : null;
  if (!/Lost contact with the server at \d\d:\d\d:\d\d UTC — retrying; data shown is from then/.test(text ?? '')) throw new Error(`the stale-data banner says: ${text}`);
  // On every page, the time of the loss unchanged.
  for (const nav of ['runs', 'cluster', 'pipelines', 'editor']) {
    await page.click(`[data-nav=${nav}]`);
    await banner.waitFor({ timeout: 10000 });
    const again = await banner.textContent();
    if (again !== text) throw new Error(`the banner changed on ${nav}: ${again}`);
  }
  // The editor shows the last pipeline opened, which it cannot validate now.
  await page.waitForSelector('[data-testid=validation][data-failed=true]', { timeout: 30000 });
  if (stoppedAt !== null && (await clock.textContent()) !== stoppedAt) throw new Error(`the server's clock kept running while contact was lost: ${stoppedAt}, then ${await clock.textContent()}`);
  await shot();

  // The same server again: same port, same database.
  const port = new URL(url).port;
  const args = JSON.parse(process.env.GANTRY_SERVE_ARGS).map((a) => (a === '127.0.0.1:0' ? `127.0.0.1:${port}` : a));
  const log = fs.openSync(path.join(path.dirname(pidFile), 'serve-restarted.log'), 'w');
  const child = spawn(process.env.GANTRY_BIN, args, { stdio: ['ignore', log, log], detached: true });
  fs.writeFileSync(pidFile, String(child.pid));
  child.unref();

  await banner.waitFor({ state: 'detached', timeout: 90000 });
  await page.waitForSelector('.live[data-live=live]', { timeout: 30000 });
  // The editor validated again by itself.
  await page.waitForSelector('[data-testid=validation][data-valid=true]', { timeout: 30000 });
  // The pipelines page reads its data again: the pipeline's row is there, with its last run.
  await page.click('[data-nav=pipelines]');
  await page.waitForSelector(`tr[data-pipeline="${pipeline}"] .badge`);

  // The refused requests of the outage are expected console errors; anything else is not.
  const during = errors.splice(firstError);
  errors.push(...during.filter((e) => !kRefused.test(e)));
}
