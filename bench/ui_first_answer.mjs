// First page load of `memwall ui` in headless Chromium on loopback: the time from navigation to the
// first inference answer drawn (the Inference view's cards in the page, with its charts: they are
// set synchronously in the same task), each run in a fresh browser context (cold cache), and the
// requests on the way (start, response start, response end, bytes). Issue 29's bar: <= 1 s.
// Usage: node bench/ui_first_answer.mjs <memwall binary> [runs=5] (run from ui/ or with
// NODE_PATH=ui/node_modules so that playwright-core resolves).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.resolve("ui/package.json"));
const { chromium } = require("playwright-core");
const [binary, runsArg] = process.argv.slice(2);
if (!binary) { console.error("usage: ui_first_answer.mjs <memwall binary> [runs]"); process.exit(2); }
const server = spawn(binary, ["ui", "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let text = "";
  server.stderr.on("data", (d) => { text += d; const m = /serving (http:\/\/\S+?\/)/.exec(text); if (m) resolve(m[1]); });
  setTimeout(() => reject(new Error("memwall ui did not start: " + text)), 20000);
});
const browser = await chromium.launch({ executablePath: process.env.MEMWALL_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"] });
const times = [];
try {
  for (let run = 0; run < Number(runsArg || 5); run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Noted when the answer's cards enter the page: the task that drew them (charts too) is done.
    await context.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelector("#infer-out .cards")) { window.__firstAnswerMs = performance.now(); obs.disconnect(); }
      }).observe(document, { childList: true, subtree: true });
    });
    const page = await context.newPage();
    await page.goto(url + "?lang=en");
    await page.waitForFunction(() => window.__firstAnswerMs, null, { timeout: 60000 });
    const r = await page.evaluate(() => ({
      first: window.__firstAnswerMs,
      requests: [performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")].map((e) =>
        `${new URL(e.name).pathname} ${e.startTime.toFixed(0)}-${e.responseStart.toFixed(0)}-${e.responseEnd.toFixed(0)} ms ${e.transferSize} B`) }));
    times.push(r.first);
    console.log(`run ${run + 1}: first inference answer drawn ${r.first.toFixed(0)} ms after navigation; ${r.requests.join("; ")}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
times.sort((a, b) => a - b);
console.log(`first answer: median ${times[times.length >> 1].toFixed(0)} ms, range ${times[0].toFixed(0)}-${times[times.length - 1].toFixed(0)} ms over ${times.length} runs`);
