// The game's page in a browser without WebTransport: Debian's Chromium, headless, with
// `window.WebTransport` removed before the page's scripts run, so the page must fall back to a
// WebSocket by itself. Run by games/snow-fight/tests/browser_websocket.rs, which starts the
// game's server (short rounds) and a native bot to play against.
//
//   node test/browser_websocket.mjs <page url> <chromium> <a closed UDP port>
//
// The page plays by itself (`?bot=1`) until a round ends. A second page has WebTransport but
// its session fails (`?port=` a UDP port nobody listens on): it must fall back too. Prints one
// JSON line: each page's `window.snowFight` then, whether the first page saw WebTransport, and
// what the browser logged.

import { launch, open as openPage, until } from "./chromium.mjs";

const [url, chromium, closedPort] = process.argv.slice(2);
const log = [];
const result = { page: null, failed: null, sawWebTransport: null, log };
const summary = () => {
  const { status, transport, fallback, player, snapshots, won, lost, rtts } = window.snowFight;
  return { status, transport, fallback, player, snapshots, won, lost, rtts: rtts.length };
};
let chrome = null;

try {
  chrome = await launch(chromium);
  log.push(`browser: ${await chrome.browser.version()}`);
  const page = await openPage(chrome.browser, url, "?bot=1", log, (p) =>
    p.evaluateOnNewDocument(() => {
      delete window.WebTransport;
    }),
  );
  result.sawWebTransport = await page.evaluate(() => typeof window.WebTransport !== "undefined");
  const failed = await openPage(chrome.browser, url, `?bot=1&port=${closedPort}`, log);
  await until(page, "the page joining", () => window.snowFight?.status === "playing", 20_000);
  await until(failed, "the page whose session fails joining", () => window.snowFight?.status === "playing", 20_000);
  await until(page, "a round's end", () => window.snowFight.won + window.snowFight.lost >= 1, 30_000);
  result.page = await page.evaluate(summary);
  result.failed = await failed.evaluate(summary);
} catch (e) {
  result.error = String(e);
} finally {
  await chrome?.close();
}
console.log(JSON.stringify(result));
