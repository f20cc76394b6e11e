// Starts Debian's Chromium through playwright-core (no browser download), with the flags this
// machine needs: headless, no sandbox (root), no GPU, and no background networking (a closed
// network refuses Chromium's own connections), in a fresh profile directory.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const kChromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launch({ width = 1440, height = 900 } = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-e2e-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: kChromiumFlags,
    viewport: { width, height },
    deviceScaleFactor: 1,
  });
  const close = async () => {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

// Collects console errors and uncaught exceptions of a page.
export function watchErrors(page, sink) {
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // The editor's validation asks POST /pipelines?dryRun=true about every text that parses; a
    // document with problems is answered 400 with them, which the browser logs. That answer is
    // the one asked for, not a failure.
    if (/status of 400/.test(m.text()) && (m.location()?.url ?? '').includes('/pipelines?dryRun=true')) return;
    sink.push(`console: ${m.text()}${m.location()?.url ? ` (${m.location().url})` : ""}`);
  });
  page.on('pageerror', (e) => sink.push(`page error: ${process.env.E2E_DEBUG ? e.stack : e.message}`));
}
