// The game's page over a slow link: Debian's Chromium, headless, driven by puppeteer-core, with
// its WebTransport session through a lossy UDP relay (run by games/snow-fight/tests/
// browser_lag.rs, which starts the server and the relay). The round trip is the relay's; the
// page's own avatar must still move in the frame after a key press, and its prediction's
// counters (corrections and their sizes) are read back.
//
//   node test/browser_lag.mjs <page url> <chromium> <relay port> [presses] [hold ms]
//
// Two pages join through the relay: one plays by itself (`?bot=1`), one is played with the
// keyboard: arrow keys pressed and held in turn, toward the middle of the world. Prints one
// JSON line: each press (where the avatar was drawn before and after, and the first frame that
// showed it moved), each page's `window.snowFight` afterwards, the keyboard page's avatar as
// drawn and as the server last had it once the walking settled, and what the browser logged.

import { launch, open as openPage, until } from "./chromium.mjs";

const [url, chromium, relayPort, pressesArg, holdArg] = process.argv.slice(2);
const presses = Number(pressesArg ?? 6);
const holdMs = Number(holdArg ?? 400);
const log = [];
const result = { bot: null, keyboard: null, keys: [], settled: null, log };
let chrome = null;
const open = (query) => openPage(chrome.browser, url, query, log);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
  chrome = await launch(chromium);
  log.push(`browser: ${await chrome.browser.version()}`);
  const through = `port=${relayPort}&ping=200`;
  const bot = await open(`?bot=1&${through}`);
  const keys = await open(`?${through}`);
  await keys.bringToFront();
  for (const [page, name] of [[bot, "bot"], [keys, "keyboard"]]) {
    await until(page, `the ${name} page joining through the relay`, () => window.snowFight?.status === "playing", 30_000);
  }
  // Round trips measured and our avatar predicted before the first key.
  await until(keys, "round trips and a predicted avatar", () => window.snowFight.rtts.length >= 3 && window.snowFight.shown !== null, 15_000);
  for (let k = 0; k < presses; k++) {
    const at = await keys.evaluate(() => window.snowFight.shown);
    const responses = await keys.evaluate(() => window.snowFight.keyResponses.length);
    // Alternately across and up or down, toward the middle (the world is 24 by 16, north +y).
    const key = k % 2 === 0 ? (at.x < 12 ? "ArrowRight" : "ArrowLeft") : at.y < 8 ? "ArrowUp" : "ArrowDown";
    await keys.keyboard.down(key);
    await sleep(holdMs);
    await keys.keyboard.up(key);
    await sleep(holdMs);
    const to = await keys.evaluate(() => window.snowFight.shown);
    // The first frame that showed the avatar moved after this press (null if none did: a
    // player against a wall or a tree stays where it is).
    const response = await keys.evaluate((n) => window.snowFight.keyResponses[n] ?? null, responses);
    result.keys.push({ key, from: at, to, response });
  }
  // Standing still a while: the server's position and the drawn one should meet.
  await sleep(1_000);
  result.settled = await keys.evaluate(() => {
    const s = window.snowFight;
    return { shown: s.shown, server: s.positions[s.positions.length - 1] ?? null };
  });
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
