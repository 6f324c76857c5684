// Round trips from a page to the game's server over WebTransport on loopback, in headless
// Chromium: a `?bot=1&ping=MS` page pings the server every MS milliseconds for SECONDS seconds
// and keeps the round trip of every pong (performance.now(), which Chromium rounds to 0.1 ms).
// A benchmark, run by hand (BENCHMARKS.md), against a running server:
//
//   cargo run --release -p snow-fight --example server -- --bind 127.0.0.1:7777 --web 127.0.0.1:8080
//   node web/bench/rtt.mjs http://127.0.0.1:8080/ /usr/bin/chromium 30 20
//
// Prints one JSON line: the count, p50, p99 and max in milliseconds.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";

const [url, chromium, secondsArg, everyArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 30);
const every = Number(everyArg ?? 20);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "hopnet-chromium-"));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  await page.goto(`${url}?bot=1&ping=${every}`);
  await page.waitForFunction(() => window.snowFight?.status === "playing", { timeout: 20_000 });
  // The first second is the connection settling; keep what follows.
  await new Promise((r) => setTimeout(r, 1_000));
  const skip = await page.evaluate(() => window.snowFight.rtts.length);
  await new Promise((r) => setTimeout(r, seconds * 1_000));
  const rtts = (await page.evaluate(() => window.snowFight.rtts)).slice(skip).sort((a, b) => a - b);
  const q = (p) => rtts[Math.round((rtts.length - 1) * p)];
  console.log(JSON.stringify({ browser: await browser.version(), count: rtts.length, p50_ms: q(0.5), p99_ms: q(0.99), max_ms: rtts[rtts.length - 1] }));
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
