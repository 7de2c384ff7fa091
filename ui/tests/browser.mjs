// Browser tests of the memwall web UI (scripts/ui-test.sh runs this): Debian's chromium driven by
// playwright-core, on loopback only. Every view in English and in Chinese: it answers on load,
// shows no script error, its charts have data, and in Chinese no English word is left outside
// model and hardware ids (elements marked translate="no"). A change of input changes the answer;
// the static report renders every view from a file with the network blocked; every control of
// every view gives the answer of the page's own CLI command (parity.mjs), in both languages. Screenshots go to
// the output folder.
// Usage: node ui/tests/browser.mjs <memwall binary> <output folder>
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { checkParity } from "./parity.mjs";

const [binary, outDir] = process.argv.slice(2);
if (!binary || !outDir) { console.error("usage: browser.mjs <memwall binary> <output folder>"); process.exit(2); }
mkdirSync(outDir, { recursive: true });
const VIEWS = ["infer", "train", "plan", "simulate", "net", "compare", "fleet"];
// Units, technical terms and proper names that stay as they are in Chinese.
const TERMS = new Set(["GiB", "MiB", "KiB", "TiB", "PiB", "FLOP", "FLOPs", "MFU", "MBU", "HFU", "TTFT", "TPOT", "SLA",
  "ZeRO", "NVLink", "NVSwitch", "PCIe", "token", "tokens", "max", "kWh", "AllReduce", "AllGather", "ReduceScatter",
  "AllToAll", "ShareGPT", "Alpaca", "Roofline", "JSON", "memwall", "npm", "HGX", "CLI", "TFLOP",
  "PFLOP", "GFLOP", "Simple", "CPU", "GPU", "TDP", "PUE", "NVMe", "vllm", "FILE", "sglang", "lmdeploy", "mindie", "trtllm", "tgi", "HBM", "XDR", "NDR", "CSV", "MWh", "GWh", "kWh"]);
const failures = [];
const fail = (what) => { failures.push(what); console.error("FAIL: " + what); };

function englishWords(text) {
  return text.split(/[^A-Za-z0-9._\-/']+/).filter((w) => /^[A-Za-z]{3,}$/.test(w) && !TERMS.has(w));
}

async function startServer() {
  const server = spawn(binary, ["ui", "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let text = "";
    server.stderr.on("data", (d) => { text += d; const m = /serving (http:\/\/\S+?\/)/.exec(text); if (m) resolve(m[1]); });
    server.on("exit", (code) => reject(new Error("memwall ui exited " + code + ": " + text)));
    setTimeout(() => reject(new Error("memwall ui did not start: " + text)), 20000);
  });
  return { server, url };
}

// Waits for the view's answer in `lang`, then checks it.
async function checkView(page, view, lang, errors, shot = `${lang}-${view}`) {
  await page.click(`#tabs button[data-view="${view}"]`);
  const out = `#${view}-out[data-lang="${lang}"]`;
  try {
    await page.waitForSelector(`${out} .cards, ${out} .error`, { timeout: 60000 });
  } catch (e) { fail(`${lang}/${view}: no answer within 60 s`); return; }
  // Charts are drawn after the numbers have been painted (the page's draw()).
  await page.waitForFunction((sel) => { const o = document.querySelector(sel); return o && !o.dataset.drawing; }, out, { timeout: 30000 })
    .catch(() => fail(`${lang}/${view}: the charts were not drawn within 30 s of the numbers`));
  await page.waitForTimeout(150);
  const result = await page.evaluate(({ view }) => {
    const section = document.getElementById("v-" + view);
    const clone = section.cloneNode(true);
    for (const el of clone.querySelectorAll('[translate="no"], code, script, style')) el.remove();
    for (const sel of clone.querySelectorAll("select")) sel.remove();
    const texts = [clone.innerText || clone.textContent];
    // The options of a translated select are shown to the user too.
    for (const sel of section.querySelectorAll('select:not([translate="no"])')) texts.push([...sel.options].map((o) => o.textContent).join(" "));
    const charts = [...section.querySelectorAll(".chart")].map((el) => {
      const inst = window.echarts && window.echarts.getInstanceByDom(el);
      if (!inst) return { id: el.id, ok: false, why: "no chart" };
      const series = inst.getOption().series || [];
      const points = series.reduce((n, s) => n + (Array.isArray(s.data) ? s.data.length : 0), 0);
      const canvas = el.querySelector("canvas");
      return { id: el.id, ok: points > 0 && !!canvas && canvas.width > 0, why: `points ${points}` };
    });
    return { text: texts.join("\n"), charts, error: (section.querySelector(".error") || {}).textContent || "" };
  }, { view });
  const banner = await page.textContent("#banner");
  if (/Charts are unavailable|图表不可用/.test(banner)) fail(`${lang}/${view}: the page says its charts are unavailable: ${banner}`);
  if (result.charts.length === 0 && !result.error) fail(`${lang}/${view}: no chart`);
  for (const c of result.charts) if (!c.ok) fail(`${lang}/${view}: chart ${c.id} is empty (${c.why})`);
  if (lang === "zh") {
    const words = englishWords(result.text);
    if (words.length) fail(`zh/${view}: English words on screen: ${[...new Set(words)].slice(0, 20).join(", ")}`);
  }
  for (const e of errors.splice(0)) fail(`${lang}/${view}: console: ${e}`);
  await page.screenshot({ path: path.join(outDir, `${shot}.png`), fullPage: true });
}

function watch(page, errors) {
  page.on("console", (m) => { if (m.type() === "error" || (m.type() === "warning" && /memwall/.test(m.text()))) errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
}

const profile = mkdtempSync(path.join(tmpdir(), "memwall-ui-chromium-"));
const { server, url } = await startServer();
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.MEMWALL_CHROMIUM || "/usr/bin/chromium", headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 900 } });
  // Loopback only: anything else the page asks for is refused (and would be a failure).
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(url) || u.startsWith("file:") || u.startsWith("data:")) return route.continue();
    fail("request outside loopback: " + u);
    return route.abort();
  });
  // The first inference answer drawn, timed from navigation on the fresh profile's first load
  // (issue 29's bar: 1 s; bench/ui_first_answer.mjs has the waterfall).
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector("#infer-out .cards")) { window.__firstAnswerMs = performance.now(); obs.disconnect(); }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  watch(page, errors);
  await page.goto(url + "?lang=en");
  const firstAnswerMs = await page.waitForFunction(() => window.__firstAnswerMs, null, { timeout: 60000 }).then((h) => h.jsonValue());
  console.log(`first inference answer drawn ${Math.round(firstAnswerMs)} ms after navigation`);
  if (firstAnswerMs > 1000) fail(`the first inference answer took ${Math.round(firstAnswerMs)} ms (the bar is 1 s)`);
  for (const view of VIEWS) await checkView(page, view, "en", errors);
  // Every control of every view gives the CLI's answer (ui/tests/parity.mjs).
  await checkParity(page, binary, "en", fail);

  // A change of input changes the answer (debounced; the earlier requests are cancelled).
  await page.click('#tabs button[data-view="infer"]');
  const before = await page.textContent("#infer-out .cards");
  for (const b of ["3", "32", "64"]) await page.fill("#infer-batch", b);
  await page.waitForFunction((old) => { const c = document.querySelector("#infer-out .cards"); return c && c.textContent !== old; }, before, { timeout: 30000 })
    .catch(() => fail("changing the batch did not change the inference answer"));
  if (!/--batch 64/.test(await page.textContent("#infer-cli"))) fail("the CLI command does not follow the input");
  if (!/infer\.batch=64/.test(page.url())) fail("the URL does not keep the input: " + page.url());
  // A number the browser cannot read is an error naming the field, not the default's answer.
  await page.fill("#infer-batch", "");
  await page.locator("#infer-batch").pressSequentially("1e");
  await page.waitForFunction(() => /Batch/.test((document.querySelector("#infer-out .error") || {}).textContent || ""), null, { timeout: 10000 })
    .catch(() => fail("'1e' in Batch did not give an error naming the field"));
  await page.fill("#infer-batch", "");  // empty: the API's default, not 0
  await page.waitForTimeout(800);
  if (await page.$("#infer-out .error")) fail("an empty batch field gave an error: " + await page.textContent("#infer-out .error"));
  await page.fill("#infer-batch", "16");

  // Fields other parts of the library add (error bars, offload placement) are drawn when present.
  const extra = await page.evaluate(() => {
    const a = JSON.parse(JSON.stringify(state.infer.answer));
    a.intervals = { ttft_s: [a.ttft_s * 0.8, a.ttft_s * 1.3], tpot_s: [a.tpot_s * 0.9, a.tpot_s * 1.2], mfu: [0.1, 0.2] };
    a.offload = { strategy: "kv", placement: { weights: { gpu_bytes: 1e10, host_bytes: 0, disk_bytes: 0, compute: "gpu" },
      kv_cache: { gpu_bytes: 1e9, host_bytes: 5e9, disk_bytes: 0, compute: "gpu" } }, host: { id: "test-host" },
      decode_step: { time_s: 0.02, gpu_s: 0.01, cpu_s: 0, transfer_s: 0.009, disk_s: 0, overhead_s: 0.001, bound: "transfer" } };
    const out = document.getElementById("infer-out");
    RENDER.infer(a, out);
    return out.textContent;
  });
  if (!/Error bars/.test(extra) || !/Offload placement/.test(extra) || !/kv_cache/.test(extra)) fail("error bars or offload placement not drawn");
  await page.screenshot({ path: path.join(outDir, "en-infer-intervals-offload.png"), fullPage: true });
  await page.fill("#infer-batch", "17");

  // Training with the optimizer in host memory (ZeRO-Offload) shows where the states went and what
  // the CPU step and the PCIe copies cost per iteration.
  await page.click('#tabs button[data-view="train"]');
  await page.selectOption("#train-offload", "optimizer:cpu");
  await page.waitForFunction(() => /CPU-Adam step/.test((document.querySelector("#train-out") || {}).textContent || ""), null, { timeout: 60000 })
    .catch(() => fail("training with --offload optimizer:cpu does not show the offload"));
  await page.screenshot({ path: path.join(outDir, "en-train-offload.png"), fullPage: true });
  await page.selectOption("#train-offload", "none");

  // A planner question no accelerator can answer shows why each was rejected, not an empty table.
  await page.click('#tabs button[data-view="plan"]');
  await page.fill("#plan-model", "llama-3.1-405b");
  await page.fill("#plan-gpus", "l4");
  await page.waitForFunction(() => /nvidia-l4/.test((document.querySelector("#plan-out .panel") || {}).textContent || "") &&
    !!document.querySelector("#plan-out .error"), null, { timeout: 60000 })
    .catch(() => fail("a planner question with no feasible plan does not show the reasons"));
  await page.screenshot({ path: path.join(outDir, "en-plan-infeasible.png"), fullPage: true });
  await page.fill("#plan-model", "qwen2.5-72b");
  await page.fill("#plan-gpus", "");
  await page.waitForFunction(() => !!document.querySelector("#plan-out .cards"), null, { timeout: 60000 })
    .catch(() => fail("the planner did not answer its default question again"));

  // A view's answer downloads as JSON (the answer itself) and CSV (its main table: one row per
  // plan); every chart saves itself as a PNG.
  const saved = async (selector) => {
    const [dl] = await Promise.all([page.waitForEvent("download", { timeout: 10000 }), page.click(selector)]);
    return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), "utf8") };
  };
  try {
    const json = await saved('[data-download="plan"][data-format="json"]');
    const shown = await page.evaluate(() => JSON.stringify(state.plan.answer));
    if (json.name !== "memwall-plan.json" || JSON.stringify(JSON.parse(json.text)) !== shown) fail("the JSON download is not the answer on screen");
    const table = await saved('[data-download="plan"][data-format="csv"]');
    const lines = table.text.trim().split("\n");
    const plans = await page.evaluate(() => state.plan.answer.plans.length);
    if (lines.length !== plans + 1 || !lines[0].split(",").includes("usd_per_million_tokens")) fail(`the CSV download has ${lines.length} lines for ${plans} plans: ${lines[0]}`);
  } catch (e) { fail("download: " + e.message); }
  const png = await page.evaluate(() => { const c = charts.get("plan-pareto"); return c && c.getOption().toolbox[0].feature.saveAsImage ? c.getDataURL({ type: "png" }).slice(0, 22) : ""; });
  if (png !== "data:image/png;base64,") fail("the Pareto chart does not save as a PNG: " + png);
  // The plans' dots are coloured per accelerator, one legend entry each.
  const dots = await page.evaluate(() => ({ series: charts.get("plan-pareto").getOption().series.filter((x) => x.type === "scatter").map((x) => x.name),
    accelerators: [...new Set(state.plan.answer.plans.map((p) => p.accelerator))] }));
  if (JSON.stringify(dots.series) !== JSON.stringify(dots.accelerators)) fail("the Pareto chart's plans are not one series per accelerator: " + JSON.stringify(dots));

  // Every point of the Pareto frontier leads to its plan: a click highlights the row of its rank,
  // added below the first rows when it ranks lower (issue 29: points past the top 20 led nowhere).
  // The answer settled first: the inputs filled above each asked again (a late one redraws).
  await page.waitForTimeout(400);
  await page.waitForFunction(() => document.getElementById("plan-status").textContent === "", null, { timeout: 60000 });
  const front = await page.evaluate(() => ({ seq: state.plan.seq, ranks: state.plan.answer.pareto_throughput.map((p) => p.plan_rank), shown: state.plan.answer.plans.length }));
  if (!front.ranks.length || front.ranks.some((r) => !r)) fail("a frontier point names no plan: " + JSON.stringify(front.ranks));
  if (!front.ranks.some((r) => r > front.shown)) fail(`every frontier plan is among the first ${front.shown}: the check below proves nothing`);
  // Points of other plans closer than a symbol (7 px) cannot be told apart by a click: skipped.
  // Positions are taken before each click (rows added can resize the chart).
  let clicked = 0;
  for (let k = 0; k < front.ranks.length; k++) {
    const { px, box } = await page.evaluate(() => {
      const c = charts.get("plan-pareto");
      c.getDom().scrollIntoView({ block: "center" });
      const r = c.getDom().getBoundingClientRect();
      return { px: c.getOption().series[0].data.map((d) => c.convertToPixel({ seriesIndex: 0 }, d.value)), box: { x: r.left, y: r.top } };
    });
    if (!px.every(([x, y], j) => front.ranks[j] === front.ranks[k] || Math.hypot(x - px[k][0], y - px[k][1]) > 7)) continue;
    if (front.ranks[k] > front.shown) ++clicked;
    await page.mouse.click(box.x + px[k][0], box.y + px[k][1]);
    await page.waitForTimeout(50);
    const picked = await page.evaluate(() => [...document.querySelectorAll("#plan-rows tr.picked")].map((tr) => Number(tr.cells[0].textContent)));
    if (JSON.stringify(picked) !== JSON.stringify([front.ranks[k]])) fail(`frontier point ${k} (plan #${front.ranks[k]}) marks rows ${JSON.stringify(picked)}`);
  }
  if (!clicked) fail("no frontier point below the first rows could be clicked alone");
  await page.mouse.move(0, 0);  // no tooltip left open for the checks below
  if (await page.evaluate(() => state.plan.seq) !== front.seq) fail("the planner answered again while its frontier was clicked");
  await page.screenshot({ path: path.join(outDir, "en-plan-frontier-row.png"), fullPage: true });

  // A pinned scenario stays on the chart beside the next answer (H100 pinned, then H200), and the
  // latency percentiles are points on a log axis, not bars.
  await page.click('#tabs button[data-view="simulate"]');
  await page.waitForSelector("#simulate-out .cards", { timeout: 60000 });
  await page.click('[data-pin="simulate"]');
  const h100 = await page.textContent("#simulate-out .cards");
  await page.selectOption("#simulate-gpu", "nvidia-h200-sxm");
  await page.waitForFunction((old) => { const c = document.querySelector("#simulate-out .cards"); return c && c.textContent !== old; }, h100, { timeout: 60000 })
    .catch(() => fail("the serving view did not answer for H200"));
  const overlay = await page.evaluate(() => charts.get("sim-pct").getOption().series.map((x) => ({ name: x.name, type: x.type, dashed: (x.lineStyle || {}).type === "dashed" })));
  if (overlay.length !== 6 || overlay.filter((x) => x.dashed && /gpu=nvidia-h100-sxm|\(/.test(x.name)).length !== 3) fail("the pinned H100 scenario is not drawn beside H200: " + JSON.stringify(overlay));
  if (overlay.some((x) => x.type === "bar")) fail("latency percentiles are drawn as bars");
  if (!/nvidia-h100-sxm|default/.test(await page.textContent("#simulate-pinned"))) fail("the pinned scenario is not named: " + await page.textContent("#simulate-pinned"));
  await page.screenshot({ path: path.join(outDir, "en-simulate-pinned.png"), fullPage: true });
  // The error bars name their quantities as the cards do, with the estimate beside each.
  const bars = await page.evaluate(() => { const p = [...document.querySelectorAll("#simulate-out .panel")].find((x) => /Error bars/.test(x.textContent));
    return p ? [...p.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent)) : []; });
  if (!bars.length || bars.some((r) => /_s\b|_per_|_s\./.test(r[0]) || r[2] === "")) fail("the error bars show raw keys or an empty estimate: " + JSON.stringify(bars));
  await page.click('[data-pin="simulate"]');
  const unpinned = await page.evaluate(() => charts.get("sim-pct").getOption().series.length);
  if (unpinned !== 3) fail(`unpinning leaves ${unpinned} series`);
  await page.selectOption("#simulate-gpu", "nvidia-h100-sxm");

  // The page in Chinese: switching re-renders what is on screen, then every view.
  await page.selectOption("#lang", "zh");
  for (const view of VIEWS) await checkView(page, view, "zh", errors);
  await checkParity(page, binary, "zh", fail);
  // At phone width no view is wider than the screen (ui-audit-3 D17: Training's offload select).
  await page.setViewportSize({ width: 390, height: 844 });
  for (const view of VIEWS) {
    await page.click(`#tabs button[data-view="${view}"]`);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(outDir, `zh-${view}-390px.png`), fullPage: true });
    for (const lang of ["zh", "en"]) {
      await page.selectOption("#lang", lang);
      await page.waitForTimeout(150);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > 390) fail(`${lang}/${view}: at 390 px the page is ${wide} px wide`);
    }
    await page.selectOption("#lang", "zh");
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // The static report, from a file, with the network refused.
  const report = path.join(profile, "report.html");
  execFileSync(binary, ["ui", "--report", report], { stdio: "ignore" });
  const offline = await context.newPage();
  const offlineErrors = [];
  watch(offline, offlineErrors);
  // URL inputs do not change what a report claims: its controls show the inputs of its answers.
  await offline.goto("file://" + report + "?lang=en&view=infer&infer.batch=64&infer.model=llama-3.1-70b");
  await offline.waitForSelector("#infer-out .cards", { timeout: 30000 });
  if (await offline.inputValue("#infer-batch") !== "16" || /--batch 64|70b/.test(await offline.textContent("#infer-cli"))) fail("the report's controls follow the URL, not its answers");
  await offline.goto("file://" + report + "?lang=en");
  for (const view of VIEWS) await checkView(offline, view, "en", offlineErrors, `report-en-${view}`);
  await offline.selectOption("#lang", "zh");
  for (const view of VIEWS) await checkView(offline, view, "zh", offlineErrors, `report-zh-${view}`);
} catch (e) {
  fail("test error: " + (e && e.stack || e));
} finally {
  if (context) await context.close();
  server.kill();
  rmSync(profile, { recursive: true, force: true });
}
if (failures.length) { console.error(`${failures.length} browser check(s) failed`); process.exit(1); }
console.log(`browser tests passed; screenshots in ${outDir}`);
