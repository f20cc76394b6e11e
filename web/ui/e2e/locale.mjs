// The browser test's language step (issue #26 §9): the navigation's switch turns the pages to
// Simplified Chinese (<html lang>, the navigation, Pipelines, Runs and Cluster), a screenshot
// is taken to be looked at, and the switch turns them back to English, which the rest of the
// test reads. Waits are on DOM state.

export async function checkLocale(page, { shot }) {
  // The page it was on, opened again at the end: the steps after this one go on from there.
  const back = await page.evaluate(() => location.hash);
  await page.click('[data-testid=language-switch] button[data-locale="zh-CN"]');
  await page.waitForSelector('html[lang="zh-CN"]');
  await page.waitForSelector('.nav a[data-nav=runs]:has-text("运行记录")');
  await page.waitForSelector('.nav [data-testid=sign-out]:has-text("退出登录")');

  await page.click('.nav a[data-nav=cluster]');
  await page.waitForSelector('.page-head h1:has-text("集群")');
  await page.waitForSelector('.kpi h3:has-text("GPU 分配率")');
  await page.waitForSelector('[data-testid=queue] th:has-text("工作负载")');
  await page.waitForSelector('.heat-legend:has-text("整卡已分配")');

  await page.click('.nav a[data-nav=runs]');
  await page.waitForSelector('.page-head h1:has-text("运行记录")');
  await page.waitForSelector('[data-testid=runs-trigger]:has-text("触发")');
  await page.waitForSelector('[data-testid=run-list] th:has-text("逻辑时间")');

  await page.click('.nav a[data-nav=pipelines]');
  await page.waitForSelector('.page-head h1:has-text("流水线")');
  await page.waitForSelector('[data-testid=pipelines-table] th:has-text("下次触发")');
  await page.waitForSelector('[data-kpi=Paused] h3:has-text("已暂停")');
  // A badge's label is translated; its data-state stays the server's word.
  await page.waitForSelector('[data-testid=pipelines-table] .badge[data-state=succeeded]:has-text("成功")');
  await shot('locale-zh');

  await page.click('[data-testid=language-switch] button[data-locale="en"]');
  await page.waitForSelector('html[lang="en"]');
  await page.waitForSelector('.page-head h1:has-text("Pipelines")');
  await page.waitForSelector('[data-testid=pipelines-table] th:has-text("Next ticks")');
  const section = back.replace(/^#\/?/, '').split(/[/?]/)[0] || 'pipelines';
  await page.evaluate((h) => (location.hash = h), back);
  await page.waitForSelector(`.nav a[data-nav="${section}"].active`);
}
