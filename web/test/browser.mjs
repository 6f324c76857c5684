// The game's page in a real browser: Debian's Chromium, headless, driven by puppeteer-core
// (which downloads no browser). Run by games/snow-fight/tests/browser.rs, which starts the
// game's server (UDP, WebTransport and the page) and a native bot that watches.
//
//   node test/browser.mjs <page url> <chromium>
//
// Two pages join: one plays by itself (`?bot=1`), one is played with the keyboard (an arrow
// key held down, then another). Each runs the page's hopnet client over WebTransport, with the
// certificate's hash from the server's /webtransport.json. Prints one JSON line: each page's
// `window.snowFight` after it played, where the keyboard page was before and after each walk,
// and what the browser logged.

import { launch, open as openPage, until } from "./chromium.mjs";

const [url, chromium] = process.argv.slice(2);
const log = [];
const result = { bot: null, keyboard: null, walk: null, log };
let chrome = null;
const open = (query) => openPage(chrome.browser, url, query, log);

const me = () => {
  const s = window.snowFight;
  return s.positions.length === 0 ? null : s.positions[s.positions.length - 1];
};

try {
  chrome = await launch(chromium);
  log.push(`browser: ${await chrome.browser.version()}`);

  const bot = await open("?bot=1");
  const keys = await open("");
  for (const [page, name] of [[bot, "bot"], [keys, "keyboard"]]) {
    await until(page, `the ${name} page joining`, () => window.snowFight?.status === "playing", 20_000);
  }
  // The bot plays: snapshots arrive and it walks somewhere.
  await until(
    bot,
    "the bot page receiving snapshots and moving",
    () => {
      const p = window.snowFight.positions;
      if (window.snowFight.snapshots < 60 || p.length < 2) return false;
      const a = p[0];
      return p.some((b) => Math.hypot(a.x - b.x, a.y - b.y) > 0.5);
    },
    20_000,
  );
  // The keyboard page walks toward the middle of the world, across then up or down, holding
  // the arrow keys (the world is 24 by 16, north is +y).
  await until(keys, "the keyboard page's first snapshot", () => window.snowFight.positions.length > 0, 10_000);
  const before = await keys.evaluate(me);
  const across = before.x < 12 ? "ArrowRight" : "ArrowLeft";
  const upDown = before.y < 8 ? "ArrowUp" : "ArrowDown";
  const hold = async (key) => {
    await keys.keyboard.down(key);
    await new Promise((r) => setTimeout(r, 600));
    await keys.keyboard.up(key);
    await new Promise((r) => setTimeout(r, 300));
    return keys.evaluate(me);
  };
  const first = await hold(across);
  const second = await hold(upDown);
  result.walk = { before, keys: [across, upDown], first, second };
  // Let the bot page ping a few times.
  await until(bot, "pongs", () => window.snowFight.rtts.length >= 3, 10_000);
  result.bot = await bot.evaluate(() => window.snowFight);
  result.keyboard = await keys.evaluate(() => window.snowFight);
  await bot.close();
  await keys.close();
} catch (e) {
  result.error = String(e?.message ?? e);
  process.exitCode = 1;
} finally {
  if (chrome !== null) await chrome.close();
}
console.log(JSON.stringify(result));
