// Per-control parity of the web UI with the command line: for every control of every view, the
// page is given a value other than its default, its answer is read, and the page's own "copy as
// CLI" command is run with --json (and --lang) and compared leaf by leaf with the page's answer.
// A control without an entry here is a failure, so a new control cannot escape the check.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A Hugging Face config.json the views upload in place of a catalog model: Llama-3.2-1B's shape as
// https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json states it. The CLI reads the
// same file (--model FILE) from this folder.
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONFIG = { __file: "llama-3.2-1b-config.json" };

// view -> control -> the inputs that set it to a non-default value (with any companion a legal
// question needs, e.g. an expert-parallel size needs a mixture-of-experts model).
export const CONTROLS = {
  infer: {
    model: { model: "Qwen/Qwen2.5-7B-Instruct" }, gpu: { gpu: "nvidia-a100-80gb-sxm" }, tp: { tp: "2" }, pp: { pp: "2" },
    ep: { model: "mixtral-8x7b", tp: "4", ep: "2" }, batch: { batch: "8" }, input: { input: "2048" },
    output: { output: "128" }, weight_precision: { weight_precision: "fp8" }, kv_precision: { kv_precision: "fp8" },
    engine: { engine: "vllm" }, engine_version: { engine: "vllm", engine_version: "0.8" },
    config: CONFIG, offload: { model: "llama-3.1-70b", offload: "layers" }, host_memory_gb: { model: "llama-3.1-70b", offload: "auto", host_memory_gb: "512" },
    sweep: { sweep: false },
  },
  train: {
    model: { model: "qwen2.5-7b" }, config: CONFIG, gpu: { gpu: "nvidia-a100-80gb-sxm" }, node: { gpu: "nvidia-h100-sxm", node: "hgx-h100" },
    fabric: { gpus: "16", fabric: "roce-400" }, gpus: { gpus: "16" }, tp: { tp: "2" }, pp: { pp: "2" }, vpp: { pp: "2", vpp: "2" },
    cp: { cp: "2" }, ep: { model: "mixtral-8x7b", gpus: "16", tp: "2", ep: "4" }, micro_batch: { micro_batch: "2" },
    global_batch: { global_batch: "512" }, seq: { seq: "8192" }, precision: { precision: "fp8" },
    recompute: { recompute: "full" }, zero: { zero: "3" }, sequence_parallel: { tp: "2", sequence_parallel: "off" },
    tokens: { tokens: "2e12" }, price_per_gpu_hour: { price_per_gpu_hour: "2.5" },
    offload: { offload: "optimizer:cpu" }, host_memory_gb: { offload: "optimizer:cpu", host_memory_gb: "1024" },
  },
  plan: {
    model: { model: "llama-3.1-8b" }, config: CONFIG, concurrency: { concurrency: "50" }, rate: { concurrency: "", rate: "5" },
    input: { input: "2048", output: "256" }, output: { output: "256" }, sla: { sla: "ttft_p99=2,tpot_p99=0.03" },
    serving: { serving: "aggregated" }, gpus: { gpus: "h100,h200" }, fabric: { fabric: "roce-400" },
    engine: { engine: "vllm" }, quality: { quality: "any" }, top: { top: "5" },
  },
  simulate: {
    model: { model: "qwen2.5-7b" }, config: CONFIG, gpu: { gpu: "nvidia-a100-80gb-sxm" }, tp: { tp: "2" }, rate: { rate: "5" },
    concurrency: { rate: "", concurrency: "32" }, dataset: { dataset: "alpaca" }, requests: { requests: "1000" },
    scheduler: { scheduler: "chunked" }, kv: { kv: "contiguous" }, sla: { sla: "ttft_p99=2s,tpot_p99=30ms" },
    preempt: { preempt: "swap" }, host_kv_cache: { host_kv_cache: "64" }, prefix_hit_rate: { prefix_hit_rate: "0.3" },
    engine: { engine: "vllm" }, engine_version: { engine: "vllm", engine_version: "0.8" },
  },
  net: {
    node: { node: "hgx-b200" }, fabric: { fabric: "roce-400" }, nodes: { nodes: "4" }, op: { op: "allgather" },
    sizes: { sizes: "1M..1G" },
  },
  fleet: {
    model: { model: "llama-3.1-8b" }, config: CONFIG, rates: { rates: "10,20,30,20" }, input: { input: "2048" },
    output: { output: "128" }, sla: { sla: "ttft_p99=2,tpot_p99=0.03" }, gpus: { gpus: "h100,h200" },
    growth_percent: { growth_percent: "10", months: "2" }, months: { months: "2" }, availability: { availability: "0.99" },
    repair_hours: { repair_hours: "4" }, startup_s: { startup_s: "120" }, rent_per_gpu_hour: { rent_per_gpu_hour: "3" },
    check_requests: { check_requests: "200" },
  },
  compare: {
    model: { model: "llama-3.1-8b" }, config: CONFIG, concurrency: { concurrency: "100" }, rate: { concurrency: "", rate: "5" },
    input: { input: "2048", output: "512" }, output: { output: "512" }, sla: { sla: "ttft_p99=2,tpot_p99=0.03" },
    gpus: { gpus: "h100,h200" }, pricing: { pricing: "cloud" },
  },
};

// The numbers each view's cards show, as [path in the answer, the page's formatter]: the cards on
// screen must show the CLI's values so formatted (the drawn page, not only the data behind it).
const HEADLINE = {
  infer: [["ttft_s", "secs"], ["tpot_s", "secs"], ["mfu", "pct"], ["mbu", "pct"]],
  train: [["step_time_s", "secs"], ["mfu", "pct"], ["memory_per_gpu_bytes", "bytes"]],
  plan: [["plans.0.usd_per_million_tokens", "usd"]],
  simulate: [["requests_per_s", "sig"], ["sla.attainment", "pct"]],
  net: [["ranks", "sig"]],
  compare: [["required_capacity_bytes", "bytes"]],
  fleet: [["saving_usd", "usd"]],
};

// The request fields the API reads that the page offers no control for, each sent to the API as a
// script would and compared with the CLI command that states the same question.
export const API_ONLY = [
  ["infer", { model: "llama-3.1-70b", offload: "auto", cpu: "2xamd-epyc-9654", host_memory_gb: 512 },
    ["infer", "--explain", "--model", "llama-3.1-70b", "--gpu", "h100", "--input", "1024", "--output", "256", "--batch", "16", "--offload", "auto", "--cpu", "2xamd-epyc-9654", "--host-memory", "512"]],
  ["train", { gpus: 16, tp: 2, dp: 8, tokens: 1e12 }, ["train", "--explain", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "16", "--tp", "2", "--dp", "8", "--micro-batch", "1", "--global-batch", "256", "--seq", "4096", "--tokens", "1e12"]],
  ["train", { offload: "optimizer:nvme", nvme_drives: 2, delayed_update: true, tokens: 1e12 },
    ["train", "--explain", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--micro-batch", "1", "--global-batch", "256", "--seq", "4096", "--tokens", "1e12", "--offload", "optimizer:nvme", "--nvme-drives", "2", "--delayed-update"]],
  ["plan", { model: "llama-3.1-8b", gpus: ["h100"], min_recovery: 99.5 }, ["plan", "infer", "--model", "llama-3.1-8b", "--concurrency", "300", "--gpus", "h100", "--min-recovery", "99.5", "--top", "20"]],
  ["compare", { model: "llama-3.1-8b", vendors: ["nvidia", "amd"], max_gpus: 8 }, ["compare", "--model", "llama-3.1-8b", "--concurrency", "300", "--vendors", "nvidia,amd", "--max-gpus", "8"]],
  ["compare", { model: "llama-3.1-8b", domestic_only: true, quality: "any" }, ["compare", "--model", "llama-3.1-8b", "--concurrency", "300", "--domestic-only", "--quality", "any"]],
];

// Fields the page may carry beside the CLI's answer, and the CLI's fields that measure the run
// (wall-clock time of the search), not the question.
const PAGE_ONLY = new Set(["sweep", "timeseries_replica0"]);
const RUN_ONLY = new Set(["search_seconds"]);

// The words of a command line as a POSIX shell splits it (the page quotes with '...').
function shellWords(line) {
  const words = [];
  let w = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === " ") { if (w !== null) { words.push(w); w = null; } continue; }
    if (w === null) w = "";
    if (c === "'") { const j = line.indexOf("'", i + 1); w += line.slice(i + 1, j); i = j; } else if (c === "\\") { w += line[++i]; } else w += c;
  }
  if (w !== null) words.push(w);
  return words;
}

const numbers = (text) => (text.match(/\d+(\.\d+)?/g) || []).sort().join(" ");  // in the order the sentence needs
// Chinese text: the page's sentences in Chinese, where the CLI's --json keeps the library's English
// (its --lang is for messages on stderr); every number must still agree.
const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

// The leaves of the CLI's answer that the page's answer lacks or states differently.
function differences(cli, page, lang, where = "", out = []) {
  if (out.length >= 8) return out;
  if (cli !== null && typeof cli === "object") {
    if (page === null || typeof page !== "object" || Array.isArray(cli) !== Array.isArray(page)) { out.push(`${where}: page has ${JSON.stringify(page)}`); return out; }
    if (Array.isArray(cli) && cli.length !== page.length) { out.push(`${where}: ${cli.length} items on the CLI, ${page.length} on the page`); return out; }
    for (const k of Object.keys(cli)) if (!RUN_ONLY.has(k)) differences(cli[k], page[k], lang, where ? `${where}.${k}` : k, out);
    return out;
  }
  const same = typeof cli === "number" && typeof page === "number" ? Math.abs(cli - page) <= 1e-9 * Math.max(Math.abs(cli), Math.abs(page)) + 1e-300
    : cli === page || (lang === "zh" && typeof cli === "string" && typeof page === "string" && CJK.test(page) && numbers(cli) === numbers(page));
  if (!same) out.push(`${where}: CLI ${JSON.stringify(cli)}, page ${JSON.stringify(page)}`);
  return out;
}

// The CLI's --json answer to argv, or a failure.
function cliAnswer(binary, argv, lang, what, fail) {
  try {
    return JSON.parse(execFileSync(path.resolve(binary), argv.concat(["--json", "--lang", lang]), { cwd: HERE, timeout: 120000, maxBuffer: 256 << 20, stdio: ["ignore", "pipe", "pipe"] }).toString());
  } catch (e) { fail(`${what}: '${argv.join(" ")}' failed: ${(e.stderr || e.message || "").toString().trim()}`); return null; }
}
function compare(cli, answer, lang, what, command, fail) {
  const diff = differences(cli, answer, lang);
  for (const k of Object.keys(answer)) if (!(k in cli) && !PAGE_ONLY.has(k)) diff.push(`${k}: only on the page`);
  if (diff.length) fail(`${what}: the page and '${command}' disagree: ${diff.join("; ")}`);
  return diff.length === 0;
}

// Every control of every view, in `lang`. `fail(what)` records a failure.
export async function checkParity(page, binary, lang, fail) {
  const views = await page.evaluate(() => VIEWS.map((v) => ({ id: v.id, controls: v.fields.map((f) => f.name).concat(["config"])
    .filter((name) => document.getElementById(`${v.id}-${name}`)) })));
  let checked = 0;
  for (const v of views) {
    const table = CONTROLS[v.id] || {};
    for (const c of v.controls) if (!(c in table)) fail(`parity ${lang}/${v.id}: control ${c} has no parity entry`);
    for (const [control, values] of Object.entries(table)) {
      if (!v.controls.includes(control)) { fail(`parity ${lang}/${v.id}: the page offers no ${control} control`); continue; }
      // A file is chosen as a user would; the page reads it and answers for it.
      if (values.__file) {
        await page.setInputFiles(`#${v.id}-config`, path.join(HERE, values.__file));
        await page.waitForFunction((id) => !!state[id].config, v.id, { timeout: 10000 }).catch(() => {});
      }
      const got = await page.evaluate(async ({ id, values }) => {
        const v = VIEWS.find((x) => x.id === id);
        const file = values.__file;
        if (!file) setInputs(v, values);
        const missing = file ? (state[id].config && state[id].config.name === file ? [] : ["config"]) : Object.entries(values).filter(([k, x]) => { const el = document.getElementById(`${id}-${k}`); return !el || (el.type === "checkbox" ? el.checked !== x : String(el.value) !== String(x)); }).map(([k]) => k);
        clearTimeout(state[id].timer);  // the upload's own debounced request would cancel this one
        await run(v);
        const s = state[id];
        const cards = (document.querySelector(`#${id}-out .cards`) || {}).textContent || "";
        const result = { answer: s.answer, error: s.error, cli: cliCommand(v), missing, cards };
        s.config = null;
        const upload = document.getElementById(`${id}-config`);
        if (upload) upload.value = "";
        setInputs(v, {});
        return result;
      }, { id: v.id, values });
      const what = `parity ${lang}/${v.id}.${control} (${JSON.stringify(values)})`;
      if (got.missing.length) { fail(`${what}: the page could not set ${got.missing.join(", ")}`); continue; }
      if (got.error || !got.answer) { fail(`${what}: the page shows an error: ${got.error}`); continue; }
      const cli = cliAnswer(binary, shellWords(got.cli).slice(1), lang, what, fail);
      if (!cli || !compare(cli, got.answer, lang, what, got.cli, fail)) continue;
      const shown = await page.evaluate(({ cli, spec }) => spec.map(([where, format]) =>
        ({ secs, pct, usd, bytes, sig })[format](where.split(".").reduce((o, k) => (o == null ? o : o[k]), cli))), { cli, spec: HEADLINE[v.id] });
      const absent = shown.filter((x) => !got.cards.includes(x));
      if (absent.length) fail(`${what}: the cards do not show the CLI's ${absent.join(", ")}: ${got.cards.replace(/\s+/g, " ").slice(0, 300)}`);
      else checked++;
    }
    await page.evaluate(({ id }) => run(VIEWS.find((x) => x.id === id)), { id: v.id });  // the defaults' answer again
  }
  for (const [endpoint, body, argv] of API_ONLY) {
    const what = `parity ${lang}/api/${endpoint} ${JSON.stringify(body)}`;
    const got = await page.evaluate(async ({ endpoint, body, lang }) => {
      const res = await fetch(`api/${endpoint}?lang=${lang}`, { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
      return { status: res.status, answer: await res.json() };
    }, { endpoint, body, lang });
    if (got.status !== 200) { fail(`${what}: HTTP ${got.status}: ${got.answer.error}`); continue; }
    const cli = cliAnswer(binary, argv, lang, what, fail);
    if (cli && compare(cli, got.answer, lang, what, "memwall " + argv.join(" "), fail)) checked++;
  }
  return checked;
}
