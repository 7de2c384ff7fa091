// First page load of `memwall ui` in headless Chromium on loopback: the time from navigation to the
// first inference answer drawn (the Inference view's cards in the page; its charts follow after the
// numbers are painted, timed too), each run in a fresh browser context (cold cache), and the
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
const times = [], chartTimes = [];
try {
  for (let run = 0; run < Number(runsArg || 5); run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Noted when the answer's cards enter the page (the task that drew them is done), and when its
    // charts are drawn (the output's data-drawing gone, a canvas in the roofline).
    await context.addInitScript(() => {
      new MutationObserver((_, obs) => {
        const out = document.querySelector("#infer-out");
        if (!window.__firstAnswerMs && document.querySelector("#infer-out .cards")) window.__firstAnswerMs = performance.now();
        if (window.__firstAnswerMs && out && !out.dataset.drawing && document.querySelector("#infer-roofline canvas")) {
          window.__chartsMs = performance.now(); obs.disconnect();
        }
      }).observe(document, { childList: true, subtree: true, attributes: true });
    });
    const page = await context.newPage();
    await page.goto(url + "?lang=en");
    await page.waitForFunction(() => window.__firstAnswerMs && window.__chartsMs, null, { timeout: 60000 });
    const r = await page.evaluate(() => ({
      first: window.__firstAnswerMs, charts: window.__chartsMs,
      requests: [performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")].map((e) =>
        `${new URL(e.name).pathname} ${e.startTime.toFixed(0)}-${e.responseStart.toFixed(0)}-${e.responseEnd.toFixed(0)} ms ${e.transferSize} B`) }));
    times.push(r.first);
    chartTimes.push(r.charts);
    console.log(`run ${run + 1}: first inference answer drawn ${r.first.toFixed(0)} ms after navigation, its charts ${r.charts.toFixed(0)} ms; ${r.requests.join("; ")}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
for (const [what, xs] of [["first answer", times], ["its charts", chartTimes]]) {
  xs.sort((a, b) => a - b);
  console.log(`${what}: median ${xs[xs.length >> 1].toFixed(0)} ms, range ${xs[0].toFixed(0)}-${xs[xs.length - 1].toFixed(0)} ms over ${xs.length} runs`);
}
