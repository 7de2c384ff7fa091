#include "memwall/ui/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "memwall/core/error.h"
#include "memwall/cost/prices.h"
#include "memwall/deploy/emit.h"
#include "memwall/infer/request.h"
#include "memwall/net/request.h"
#include "memwall/offload/request.h"
#include "memwall/plan/compare_query.h"
#include "memwall/plan/query.h"
#include "memwall/serve/request.h"
#include "memwall/train/offload_request.h"
#include "memwall/train/request.h"

namespace memwall::ui {
namespace {

// Typed request fields: a missing field takes its default; a present one of the wrong type is a
// bad input naming the field (exit-2 class, HTTP 400).
std::string text(const Json& r, const char* field, const std::string& fallback) {
  const auto it = r.find(field);
  if (it == r.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw InputError(field, it->dump(), "a string");
  return it->get<std::string>();
}

std::optional<double> number(const Json& r, const char* field) {
  const auto it = r.find(field);
  if (it == r.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw InputError(field, it->dump(), "a number");
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw InputError(field, it->dump(), "a finite number");
  return v;
}

bool flag(const Json& r, const char* field, bool fallback) {
  const auto it = r.find(field);
  if (it == r.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw InputError(field, it->dump(), "true or false");
  return it->get<bool>();
}

int count(const Json& r, const char* field, int fallback, int lo, int hi) {
  const auto v = number(r, field);
  if (!v) return fallback;
  if (*v != std::floor(*v) || *v < lo || *v > hi)
    throw InputError(field, fmt::format("{}", *v), fmt::format("an integer from {} to {}", lo, hi));
  return static_cast<int>(*v);
}

constexpr size_t kMaxNames = 256;

std::vector<std::string> names(const Json& r, const char* field) {
  std::vector<std::string> out;
  const auto it = r.find(field);
  if (it == r.end() || it->is_null()) return out;
  if (!it->is_array()) throw InputError(field, it->dump(), "an array of ids");
  // Bounded before any work: the catalog holds far fewer entries, and each named one costs a
  // search (140,000 x "h100" grew the server to 23 GB, ui-audit-3 D2b). Duplicates, by alias too,
  // are planned once by the library (plan::accelerators_named).
  if (it->size() > kMaxNames)
    throw InputError(field, fmt::format("{} ids", it->size()),
                     fmt::format("at most {} ids", kMaxNames));
  for (const auto& v : *it) {
    if (!v.is_string()) throw InputError(field, v.dump(), "ids (strings)");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Json catalog_json(const Catalog& c) {
  Json accels = Json::array(), models = Json::array(), nodes = Json::array(), fabrics = Json::array();
  for (const auto& a : c.accelerators()) {
    accels.push_back({{"id", a.id}, {"name", a.name}, {"vendor", a.vendor}, {"aliases", a.aliases},
                      {"memory_bytes", a.memory ? Json(a.memory->value()) : Json(nullptr)},
                      {"memory_bandwidth_bytes_per_s",
                       a.memory_bandwidth ? Json(a.memory_bandwidth->value()) : Json(nullptr)}});
  }
  for (const auto& m : c.models()) models.push_back({{"id", m.id}, {"layers", m.layers}, {"hidden", m.hidden}});
  for (const auto& n : c.nodes())
    nodes.push_back({{"id", n.id}, {"accelerator", n.accelerator}, {"devices", n.devices}});
  for (const auto& f : c.fabrics()) fabrics.push_back({{"id", f.id}, {"name", f.name}});
  return Json{{"accelerators", accels}, {"models", models}, {"nodes", nodes}, {"fabrics", fabrics}};
}

// Models by catalog id only: the HTTP API does not read files named by a request.
std::string model_id(const Catalog& c, const Json& r, const std::string& fallback) {
  const std::string id = text(r, "model", fallback);
  if (!c.find_model(id)) {
    std::vector<std::string> ids;
    for (const auto& m : c.models()) ids.push_back(m.id);
    throw InputError::unknown_name("model", id, ids);
  }
  return id;
}

// One deployment serving a static batch, with every operator (the roofline plot's points):
// the `memwall infer --json --explain` answer.
Json infer_json(const Catalog& c, const Json& r) {
  infer::Request q;
  q.deployment.model = model_id(c, r, "llama-3.1-8b");
  q.deployment.gpu = text(r, "gpu", "h100");
  q.deployment.tp = count(r, "tp", 1, 1, 4096);
  q.deployment.pp = count(r, "pp", 1, 1, 4096);
  q.deployment.weight_precision = parse_precision_or_throw(text(r, "weight_precision", "bf16"), "weight_precision");
  const std::string kv = text(r, "kv_precision", "");
  if (!kv.empty()) q.deployment.kv_precision = parse_precision_or_throw(kv, "kv_precision");
  q.batch.sizes = {count(r, "batch", 16, 1, 1 << 20)};
  q.input_tokens = count(r, "input", 1024, 1, 1 << 22);
  q.output_tokens = count(r, "output", 256, 1, 1 << 22);
  // With an offload, the placement per tensor class and the host (docs/offload.md).
  offload::Request o{q, offload::parse_strategy(text(r, "offload", "none"), "offload"), {}};
  if (auto gb = number(r, "host_memory_gb")) o.host.host_memory_gb = *gb;
  const std::string cpu = text(r, "cpu", "");
  if (!cpu.empty()) o.host.cpu = cpu;
  Json out = offload::to_json(offload::answer(c, o), true);
  // A batch sweep beside the answer (the sizes that fit), for the page's TPOT/throughput curve.
  const std::string sweep = text(r, "sweep", "");
  if (!sweep.empty()) {
    o.infer.batch = infer::parse_batch_spec(sweep, "sweep");
    if (o.infer.batch.sizes.size() > 64) throw InputError("sweep", sweep, "at most 64 batch sizes");
    try {
      const Json swept = offload::to_json(offload::answer(c, o), false);
      out["sweep"] = swept.contains("sweep") ? swept.at("sweep") : Json::array({swept});
    } catch (const InfeasibleError&) {
      out["sweep"] = Json::array();  // no size of the sweep fits; the answer above still stands
    }
  }
  return out;
}

Json plan_json(const Catalog& c, const Json& r) {
  plan::InferenceQuery q;
  q.model = model_id(c, r, q.model);
  q.concurrency = number(r, "concurrency");
  q.rate = number(r, "rate");
  if (!q.concurrency && !q.rate) q.concurrency = 300;  // the README scenario
  q.input = text(r, "input", q.input);
  q.output = text(r, "output", q.output);
  q.sla = text(r, "sla", q.sla);
  q.fabric = text(r, "fabric", q.fabric);
  q.serving = text(r, "serving", q.serving);
  q.top = count(r, "top", 20, 1, 1000);
  q.gpus = names(r, "gpus");
  q.quality = text(r, "quality", q.quality);  // lossless | near-lossless | any (docs/plan.md)
  q.min_recovery = number(r, "min_recovery");
  q.engine = text(r, "engine", q.engine);
  // The CLI's --emit / --pick / --engine-version / --benchmark (docs/plan.md "From plan to
  // deployment"): the emitted files beside the answer.
  deploy::EmitRequest e;
  const std::string emit = text(r, "emit", "");
  if (!emit.empty()) e.emit = emit;
  e.pick = count(r, "pick", 1, 1, 10000);
  e.benchmark = flag(r, "benchmark", false);
  const std::string version = text(r, "engine_version", "");
  if (!version.empty()) e.engine_version = version;
  e.validate();
  const auto answer = plan::answer_inference(c, cost::PriceBook::builtin(), q);
  Json out = plan::to_json(*answer);
  if (e.emit || e.benchmark) {
    out["emitted"] = Json::array();
    for (const auto& f : deploy::emit_plan(*answer, e))
      out["emitted"].push_back({{"name", f.name}, {"text", f.text}});
  }
  return out;
}

// The four-dimension scorecard: the `memwall compare --json` answer.
Json compare_json(const Catalog& c, const Json& r) {
  plan::CompareQuery q;
  q.model = model_id(c, r, q.model);
  q.concurrency = number(r, "concurrency");
  q.rate = number(r, "rate");
  q.input = text(r, "input", q.input);
  q.output = text(r, "output", q.output);
  q.sla = text(r, "sla", q.sla);
  q.gpus = names(r, "gpus");
  q.vendors = names(r, "vendors");
  q.domestic_only = flag(r, "domestic_only", false);
  if (number(r, "max_gpus")) q.max_gpus = count(r, "max_gpus", 0, 1, 1 << 20);
  q.pricing = text(r, "pricing", q.pricing);
  q.quality = text(r, "quality", q.quality);
  q.min_recovery = number(r, "min_recovery");
  q.precision = text(r, "precision", q.precision);
  q.kv_precision = text(r, "kv_precision", q.kv_precision);
  return plan::to_json(plan::answer_compare(c, cost::PriceBook::builtin(), score::EcosystemBook::builtin(), q));
}

// A collective's bus-bandwidth curve and its explanation: the `memwall net --json --explain`
// answer.
Json net_json(const Catalog& c, const Json& r) {
  net::Request q;
  q.node = text(r, "node", "hgx-h100");
  q.nodes = count(r, "nodes", 1, 1, 100000);
  const std::string fabric = text(r, "fabric", q.nodes > 1 ? "ib-ndr" : "");
  if (!fabric.empty()) q.fabric = fabric;
  q.op = text(r, "op", q.op);
  if (q.op == "sendrecv") throw InputError("op", "sendrecv", "a collective over all devices (allreduce ...)");
  q.sizes = text(r, "sizes", q.sizes);
  q.explain = true;
  return net::to_json(net::curve(c, q));
}

// One training configuration: the `memwall train --json` answer.
Json train_json(const Catalog& c, const Json& r) {
  train::Request q;
  q.model = model_id(c, r, "llama-3.1-8b");
  q.gpu = text(r, "gpu", "h100");
  const std::string node = text(r, "node", ""), fabric = text(r, "fabric", "");
  if (!node.empty()) q.node = node;
  if (!fabric.empty()) q.fabric = fabric;
  train::TrainConfig& t = q.config;
  t.gpus = count(r, "gpus", 8, 1, 1 << 20);
  t.tp = count(r, "tp", 1, 1, 4096);
  t.pp = count(r, "pp", 1, 1, 4096);
  t.cp = count(r, "cp", 1, 1, 4096);
  t.ep = count(r, "ep", 1, 1, 4096);
  t.dp = count(r, "dp", 0, 0, 1 << 20);
  t.vpp = count(r, "vpp", 1, 1, 1024);
  t.micro_batch = count(r, "micro_batch", 1, 1, 1 << 20);
  t.global_batch = count(r, "global_batch", 256, 1, 1 << 24);
  t.seq = count(r, "seq", 4096, 1, 1 << 22);
  t.precision = parse_precision_or_throw(text(r, "precision", "bf16"), "precision");
  // Not given, these three are answer()'s to choose and state, as for the CLI's --recompute,
  // --zero and --[no-]sequence-parallel; given, they replace its choice (ui-audit-3 D1: they were
  // written to the config, which answer() overrides, so the page's ZeRO-3 showed ZeRO-1).
  if (r.contains("recompute") && !r.at("recompute").is_null())
    q.recompute = text(r, "recompute", "auto");
  if (r.contains("zero") && !r.at("zero").is_null()) q.zero = count(r, "zero", 1, 0, 3);
  if (r.contains("sequence_parallel") && !r.at("sequence_parallel").is_null())
    q.sequence_parallel = flag(r, "sequence_parallel", false);
  q.tokens = number(r, "tokens");
  q.price_per_gpu_hour = number(r, "price_per_gpu_hour");
  // With an offload (DeepSpeed ZeRO-Offload / ZeRO-Infinity), the "offload" object and the host.
  train::OffloadRequest o{q, train::parse_offload(text(r, "offload", "none"), "offload"), {}, {}};
  o.spec.delayed_update = flag(r, "delayed_update", false);
  if (auto gb = number(r, "host_memory_gb")) o.host.host_memory_gb = *gb;
  const std::string cpu = text(r, "cpu", "");
  if (!cpu.empty()) o.host.cpu = cpu;
  if (r.contains("nvme_drives")) o.nvme_drives = count(r, "nvme_drives", 1, 0, 64);
  return train::to_json(train::answer(c, o));
}

// A serving simulation (no trace files: the HTTP API never reads a file a request names), with
// up to 400 points of the KV-cache and batch time series of replica 0.
Json simulate_json(const Catalog& c, const Json& r) {
  serve::SimulateRequest q;
  q.model = model_id(c, r, "llama-3.1-8b");
  q.gpu = text(r, "gpu", "h100");
  q.tp = count(r, "tp", 1, 1, 4096);
  q.rate = number(r, "rate");
  if (const auto users = number(r, "concurrency")) q.concurrency = static_cast<int64_t>(*users);
  if (!q.rate && !q.concurrency) q.rate = 20;
  q.dataset = text(r, "dataset", q.dataset);
  q.requests = count(r, "requests", 5000, 1, 50000);
  q.scheduler = text(r, "scheduler", q.scheduler);
  q.kv = text(r, "kv", q.kv);
  q.preempt = text(r, "preempt", q.preempt);
  q.host_kv_cache_gib = number(r, "host_kv_cache").value_or(0);
  q.prefix_hit_rate = number(r, "prefix_hit_rate");
  const std::string sla = text(r, "sla", "ttft_p99=1s,tpot_p99=50ms");
  if (!sla.empty()) q.sla = sla;
  const serve::ServingRun run = serve::simulate(c, q);
  Json out = serve::to_json(run);
  Json series = Json::array();
  std::vector<const serve::TimeSample*> first;
  for (const auto& t : run.result.timeseries)
    if (t.replica == 0) first.push_back(&t);
  const size_t step = std::max<size_t>(1, first.size() / 400);
  for (size_t i = 0; i < first.size(); i += step) {
    const auto& t = *first[i];
    series.push_back({{"t_s", t.t_s}, {"running", t.running}, {"waiting", t.waiting}, {"batch", t.batch},
                      {"kv_used_tokens", t.kv.used}, {"kv_reserved_tokens", t.kv.reserved},
                      {"kv_capacity_tokens", t.capacity_tokens}});
  }
  out["timeseries_replica0"] = series;
  return out;
}

struct Endpoint {
  const char* name;
  std::vector<std::string> fields;  // every request field it reads
  Json (*answer)(const Catalog&, const Json&);
};

const std::vector<Endpoint>& endpoint_table() {
  static const std::vector<Endpoint> table{
      {"catalog", {}, [](const Catalog& c, const Json&) {
         // With the request fields of every endpoint: the page offers only the controls the API reads.
         Json out = catalog_json(c);
         for (const auto& e : endpoint_table()) out["fields"][e.name] = e.fields;
         return out;
       }},
      {"infer",
       {"model", "gpu", "tp", "pp", "batch", "input", "output", "weight_precision", "kv_precision", "sweep",
        "offload", "cpu", "host_memory_gb"},
       infer_json},
      {"train",
       {"model", "gpu", "node", "fabric", "gpus", "tp", "pp", "cp", "ep", "dp", "vpp", "micro_batch",
        "global_batch", "seq", "precision", "recompute", "sequence_parallel", "zero", "tokens",
        "price_per_gpu_hour", "offload", "cpu", "host_memory_gb", "nvme_drives", "delayed_update"},
       train_json},
      {"plan",
       {"model", "concurrency", "rate", "input", "output", "sla", "fabric", "serving", "top", "gpus",
        "engine", "emit", "pick", "benchmark", "engine_version"},
       plan_json},
      {"compare",
       {"model", "concurrency", "rate", "input", "output", "sla", "gpus", "vendors", "domestic_only", "max_gpus",
        "pricing"},
       compare_json},
      {"net", {"node", "fabric", "nodes", "op", "sizes"}, net_json},
      {"simulate",
       {"model", "gpu", "tp", "rate", "concurrency", "dataset", "requests", "scheduler", "kv", "sla",
        "preempt", "host_kv_cache", "prefix_hit_rate"},
       simulate_json},
  };
  return table;
}

}  // namespace

std::vector<std::string> endpoints() {
  std::vector<std::string> names;
  for (const auto& e : endpoint_table()) names.emplace_back(e.name);
  return names;
}

std::vector<std::string> request_fields(const std::string& endpoint) {
  for (const auto& e : endpoint_table())
    if (endpoint == e.name) return e.fields;
  throw InputError::unknown_name("endpoint", endpoint, endpoints());
}

Json parse_request_body(std::string_view body) {
  if (body.empty()) return Json::object();
  if (body.size() > kMaxRequestBytes)
    throw InputError("request body", fmt::format("{} bytes", body.size()),
                     fmt::format("at most {} bytes", kMaxRequestBytes));
  // Depth and duplicate keys are checked by the parser's callback as it goes, so the tree is never
  // deeper than kMaxDocumentDepth (100,000 levels overflowed the stack, reliability-3 defect 1)
  // and {"batch":4,"batch":8} does not answer for 8 silently.
  std::string problem;
  std::vector<std::vector<std::string>> keys;  // of each object being read
  auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (!problem.empty()) return false;
    if (depth > kMaxDocumentDepth) {
      problem = fmt::format("request body: nesting deeper than {} levels", kMaxDocumentDepth);
    } else if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end && !keys.empty()) {
      keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end())
        problem = fmt::format("request body: field '{}' given twice", key);
      keys.back().push_back(key);
    }
    return problem.empty();
  };
  Json j;
  try {
    j = Json::parse(body.begin(), body.end(), check);
  } catch (const Json::exception& e) {
    // Parse errors and number overflow (1e400: out_of_range.406); the parser's message quotes the
    // bytes read, which the server's JSON writer makes valid UTF-8.
    if (problem.empty()) throw InputError(std::string("request body: not JSON: ") + e.what());
  }
  if (!problem.empty()) throw InputError(problem);
  return j;
}

Json handle(const Catalog& catalog, const std::string& endpoint, const Json& request) {
  // The type, not the text: serialising a hostile request recurses once per level.
  if (!request.is_object())
    throw InputError("request", std::string("a JSON ") + request.type_name(), "a JSON object");
  for (const auto& e : endpoint_table()) {
    if (endpoint != e.name) continue;
    // A misspelt field is an error, not a silent default ({"btach": 4} must not answer for 16).
    for (const auto& [key, value] : request.items())
      if (std::find(e.fields.begin(), e.fields.end(), key) == e.fields.end())
        throw e.fields.empty() ? InputError(key, value.dump(), std::string("no fields (") + e.name + " takes none)")
                               : InputError::unknown_name(fmt::format("{} request field", e.name), key, e.fields);
    return e.answer(catalog, request);
  }
  throw InputError::unknown_name("endpoint", endpoint, endpoints());
}

}  // namespace memwall::ui
