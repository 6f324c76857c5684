// What the browser tests share: Debian's Chromium started headless by puppeteer-core (which
// downloads no browser) with a profile of its own, the game's page opened with what it logs
// collected, and a wait that says what the page was when it timed out.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";

/** Starts `chromium` headless; `close()` stops it and removes its profile. */
export async function launch(chromium) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "hopnet-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  }).catch((e) => {
    fs.rmSync(profile, { recursive: true, force: true });
    throw e;
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` + `query` in a new tab of `browser`, its console, errors and failed requests
 * pushed onto `log`; `prepare(page)`, if given, runs before the page loads. */
export async function open(browser, url, query, log, prepare = async () => {}) {
  const page = await browser.newPage();
  await prepare(page);
  page.on("console", (m) => log.push(`${query} console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => log.push(`${query} error: ${e.message}`));
  page.on("requestfailed", (r) => log.push(`${query} request failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${url}${query}`, { waitUntil: "load" });
  return page;
}

/** Waits until `predicate` holds in `page`; otherwise throws, with the page's `window.snowFight`. */
export async function until(page, what, predicate, ms) {
  try {
    await page.waitForFunction(predicate, { timeout: ms, polling: 50 });
  } catch {
    const state = await page.evaluate(() => window.snowFight ?? null).catch(() => null);
    throw new Error(`${what} within ${ms} ms; the page: ${JSON.stringify(state)}`);
  }
}
