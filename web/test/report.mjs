// The demo's HTML report in headless Chromium: opens the file, says what the page holds (its
// plots and their titles), takes a screenshot, and reads the screenshot back in the browser to
// say how much of it is drawn. Prints one JSON line; the Rust test judges it.
//
// node test/report.mjs REPORT.html CHROMIUM SCREENSHOT.png

import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { launch } from "./chromium.mjs";

const [report, chromium, screenshot] = process.argv.slice(2);
const { browser, close } = await launch(chromium);
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  await page.setViewport({ width: 1000, height: 800 });
  await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
  const seen = await page.evaluate(() => ({
    svgs: document.querySelectorAll("svg").length,
    headings: [...document.querySelectorAll("section > h2")].map((h) => h.textContent.trim()),
    // Each plot's own caption, the first text it draws, and its size on the page.
    plots: [...document.querySelectorAll("section > svg")].map((svg) => {
      const box = svg.getBoundingClientRect();
      return {
        caption: svg.querySelector("text")?.textContent.trim() ?? "",
        // The colours of its lines (a line per client, its legend's swatch the same colour).
        lineColours: new Set(
          [...svg.querySelectorAll("polyline")]
            .map((l) => l.getAttribute("stroke"))
            .filter((c) => c && c !== "#000000"),
        ).size,
        width: box.width,
        height: box.height,
      };
    }),
    scripts: document.querySelectorAll("script").length,
  }));
  const png = await page.screenshot({ fullPage: true, type: "png" });
  fs.writeFileSync(screenshot, png);
  // The screenshot drawn on a canvas: its size, the pixels that are not white, the colours.
  const blank = await browser.newPage();
  const pixels = await blank.evaluate(async (data) => {
    const img = new Image();
    img.src = `data:image/png;base64,${data}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, img.width, img.height).data;
    let drawn = 0;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) drawn++;
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    }
    return { width: img.width, height: img.height, drawn, colours: colours.size };
  }, Buffer.from(png).toString("base64"));
  console.log(JSON.stringify({ ...seen, screenshot: pixels, errors }));
} finally {
  await close();
}
