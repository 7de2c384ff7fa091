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
#include "memwall/model/zoo.h"
#include "memwall/net/request.h"
#include "memwall/offload/request.h"
#include "memwall/perf/efficiency.h"
#include "memwall/plan/compare_query.h"
#include "memwall/plan/fleet.h"
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

// The engine profile (data/engines) and its version, as the CLI's --engine / --engine-version:
// a version without an engine is refused by the library (infer::make_deployment).
void read_engine(const Json& r, std::string& engine, std::optional<std::string>& version) {
  engine = text(r, "engine", engine);
  const std::string v = text(r, "engine_version", "");
  if (!v.empty()) version = v;
}

Json catalog_json(const Catalog& c) {
  Json accels = Json::array(), models = Json::array(), nodes = Json::array(), fabrics = Json::array();
  for (const auto& a : c.accelerators()) {
    accels.push_back({{"id", a.id}, {"name", a.name}, {"vendor", a.vendor}, {"aliases", a.aliases},
                      {"memory_bytes", a.memory ? Json(a.memory->value()) : Json(nullptr)},
                      {"memory_bandwidth_bytes_per_s",
                       a.memory_bandwidth ? Json(a.memory_bandwidth->value()) : Json(nullptr)}});
  }
  for (const auto& m : c.models())
    models.push_back(
        {{"id", m.id}, {"layers", m.layers}, {"hidden", m.hidden}, {"hf_repos", m.hf_repos}});
  for (const auto& n : c.nodes())
    nodes.push_back({{"id", n.id}, {"accelerator", n.accelerator}, {"devices", n.devices}});
  for (const auto& f : c.fabrics()) fabrics.push_back({{"id", f.id}, {"name", f.name}});
  // Engines with their versions, each once, the current one first (the page's selectors).
  Json engines = Json::array();
  for (const auto& name : perf::default_efficiency().engine_names()) {
    std::vector<std::string> versions;
    for (const auto& p : perf::default_efficiency().engines) {
      if (p.name != name || p.version.empty()) continue;
      if (std::find(versions.begin(), versions.end(), p.version) != versions.end()) continue;
      if (p.current)
        versions.insert(versions.begin(), p.version);
      else
        versions.push_back(p.version);
    }
    engines.push_back({{"id", name}, {"versions", versions}});
  }
  return Json{{"accelerators", accels},
              {"models", models},
              {"nodes", nodes},
              {"fabrics", fabrics},
              {"engines", engines}};
}

// Models by catalog id or Hugging Face repository id (org/name, as the CLI's --model takes them:
// Catalog::find_model_by_hf_repo); the HTTP API does not read files named by a request.
std::string model_id(const Catalog& c, const Json& r, const std::string& fallback) {
  const std::string id = text(r, "model", fallback);
  if (c.find_model(id)) return id;
  if (const ModelSpec* m = c.find_model_by_hf_repo(id)) return m->id;
  std::vector<std::string> ids;
  for (const auto& m : c.models()) ids.push_back(m.id);
  throw InputError::unknown_name("model", id, ids);
}

// What the server's --calibration profile fitted (null: the built-in parameters), for the page's
// banner: the file's name, and per engine or framework group its records and accelerators
// (the profile's fitted_on, measure/calibrate.h).
Json calibration_summary(const ApiOptions& options) {
  if (!options.calibration) return nullptr;
  const Json doc = load_document(*options.calibration);
  Json groups = Json::array();
  if (const auto f = doc.find("fitted_on"); f != doc.end() && f->is_object())
    if (const auto g = f->find("groups"); g != f->end() && g->is_object())
      for (const auto& [key, v] : g->items())
        groups.push_back({{"stack", key},
                          {"records", v.value("records", 0)},
                          {"accelerators", v.value("accelerators", Json::array())}});
  Json sections = Json::array();
  for (const auto& [key, v] : doc.items())
    if (key != "fitted_on") sections.push_back(key);
  const std::string& path = *options.calibration;
  return {{"file", path.substr(path.find_last_of('/') + 1)},
          {"path", path},
          {"sections", sections},
          {"groups", groups}};
}

// One deployment serving a static batch, with every operator (the roofline plot's points):
// the `memwall infer --json --explain` answer.
Json infer_json(const Catalog& c, const Json& r, const CancelFlag*, const ApiOptions& options) {
  infer::Request q;
  q.deployment.model = model_id(c, r, "llama-3.1-8b");
  q.deployment.gpu = text(r, "gpu", "h100");
  q.deployment.tp = count(r, "tp", 1, 1, 4096);
  q.deployment.pp = count(r, "pp", 1, 1, 4096);
  q.deployment.ep = count(r, "ep", 1, 1, 4096);
  read_engine(r, q.deployment.engine, q.deployment.engine_version);
  q.deployment.weight_precision = parse_precision_or_throw(text(r, "weight_precision", "bf16"), "weight_precision");
  const std::string kv = text(r, "kv_precision", "");
  if (!kv.empty()) q.deployment.kv_precision = parse_precision_or_throw(kv, "kv_precision");
  q.batch.sizes = {count(r, "batch", 16, 1, 1 << 20)};
  q.input_tokens = count(r, "input", 1024, 1, 1 << 22);
  q.output_tokens = count(r, "output", 256, 1, 1 << 22);
  q.deployment.calibration_file = options.calibration;
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

Json plan_json(const Catalog& c, const Json& r, const CancelFlag* cancel, const ApiOptions& options) {
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
  q.calibration = options.calibration;
  q.cancel = cancel;
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

// A fleet for a demand curve: the `memwall plan fleet --json` answer. "demand" is the requests/s
// of each hour (the CSV's rate_per_s column); the other fields are plan fleet's options.
Json fleet_json(const Catalog& c, const Json& r, const CancelFlag* cancel, const ApiOptions& options) {
  plan::FleetQuery q;
  q.base.model = model_id(c, r, q.base.model);
  q.base.input = text(r, "input", q.base.input);
  q.base.output = text(r, "output", q.base.output);
  q.base.sla = text(r, "sla", q.base.sla);
  q.base.fabric = text(r, "fabric", q.base.fabric);
  q.base.gpus = names(r, "gpus");
  q.base.engine = text(r, "engine", q.base.engine);
  q.base.quality = text(r, "quality", q.base.quality);
  q.base.min_recovery = number(r, "min_recovery");
  q.base.calibration = options.calibration;
  q.base.cancel = cancel;
  // The curve as the CLI's --rates (a comma list), or as an array of numbers.
  const auto demand = r.find("demand");
  const std::string rates = text(r, "rates", "");
  if ((demand == r.end()) == rates.empty())
    throw InputError("rates / demand", rates.empty() ? "neither given" : "both given",
                     "exactly one: rates (a comma list of requests/s per hour, the CLI's --rates) "
                     "or demand (an array of them)");
  if (!rates.empty()) {
    q.demand = plan::demand_from_rates(rates, "rates");
  } else {
    if (!demand->is_array())
      throw InputError("demand", demand->dump().substr(0, 80),
                       "an array of requests per second, one per hour");
    std::vector<double> values;
    for (size_t h = 0; h < demand->size(); ++h) {
      const Json& v = (*demand)[h];
      if (!v.is_number())
        throw InputError(fmt::format("demand[{}]", h), v.dump().substr(0, 80), "requests per second");
      values.push_back(v.get<double>());
    }
    q.demand = plan::demand_from_rates(values, "demand");
  }
  q.growth_per_month = number(r, "growth_percent").value_or(0) / 100.0;
  q.months = count(r, "months", 1, 1, 120);
  q.availability = number(r, "availability").value_or(q.availability);
  if (const auto f = number(r, "failures_per_device_year")) q.failures_per_device_year = *f;
  q.repair_hours = number(r, "repair_hours");
  q.startup_s = number(r, "startup_s");
  q.rent_per_gpu_hour = number(r, "rent_per_gpu_hour");
  q.min_replicas = count(r, "min_replicas", 1, 1, 100000);
  q.check_requests = count(r, "check_requests", 1000, 0, 1000000);
  return plan::to_json(plan::plan_fleet(c, cost::PriceBook::builtin(), q));
}

// The four-dimension scorecard: the `memwall compare --json` answer.
Json compare_json(const Catalog& c, const Json& r, const CancelFlag* cancel, const ApiOptions& options) {
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
  q.calibration = options.calibration;
  q.cancel = cancel;
  return plan::to_json(plan::answer_compare(c, cost::PriceBook::builtin(), score::EcosystemBook::builtin(), q));
}

// A collective's bus-bandwidth curve and its explanation: the `memwall net --json --explain`
// answer.
Json net_json(const Catalog& c, const Json& r, const CancelFlag*, const ApiOptions&) {
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
Json train_json(const Catalog& c, const Json& r, const CancelFlag*, const ApiOptions& options) {
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
  q.calibration_file = options.calibration;
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
Json simulate_json(const Catalog& c, const Json& r, const CancelFlag* cancel, const ApiOptions& options) {
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
  read_engine(r, q.engine, q.engine_version);
  q.preempt = text(r, "preempt", q.preempt);
  q.host_kv_cache_gib = number(r, "host_kv_cache").value_or(0);
  q.prefix_hit_rate = number(r, "prefix_hit_rate");
  const std::string sla = text(r, "sla", "ttft_p99=1s,tpot_p99=50ms");
  if (!sla.empty()) q.sla = sla;
  q.calibration_file = options.calibration;
  q.cancel = cancel;
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
  Json (*answer)(const Catalog&, const Json&, const CancelFlag*, const ApiOptions&);
};

const std::vector<Endpoint>& endpoint_table() {
  static const std::vector<Endpoint> table{
      {"catalog",
       {},
       [](const Catalog& c, const Json&, const CancelFlag*, const ApiOptions& options) {
         // With the request fields of every endpoint: the page offers only the controls the API reads.
         Json out = catalog_json(c);
         out["calibration"] = calibration_summary(options);
         for (const auto& e : endpoint_table()) out["fields"][e.name] = e.fields;
         return out;
       }},
      {"infer",
       {"model", "gpu", "tp", "pp", "ep", "batch", "input", "output", "weight_precision",
        "kv_precision", "engine", "engine_version", "sweep", "offload", "cpu", "host_memory_gb",
        "config", "config_name"},
       infer_json},
      {"train",
       {"model",
        "gpu",
        "node",
        "fabric",
        "gpus",
        "tp",
        "pp",
        "cp",
        "ep",
        "dp",
        "vpp",
        "micro_batch",
        "global_batch",
        "seq",
        "precision",
        "recompute",
        "sequence_parallel",
        "zero",
        "tokens",
        "price_per_gpu_hour",
        "offload",
        "cpu",
        "host_memory_gb",
        "nvme_drives",
        "delayed_update",
        "config",
        "config_name"},
       train_json},
      {"plan",
       {"model", "concurrency", "rate", "input", "output", "sla", "fabric", "serving", "top",
        "gpus", "engine", "quality", "min_recovery", "emit", "pick", "benchmark", "engine_version",
        "config", "config_name"},
       plan_json},
      {"compare",
       {"model", "concurrency", "rate", "input", "output", "sla", "gpus", "vendors",
        "domestic_only", "max_gpus", "pricing", "quality", "min_recovery", "config", "config_name"},
       compare_json},
      {"fleet",
       {"model",        "rates",          "demand",
        "input",        "output",         "sla",
        "fabric",       "gpus",           "engine",
        "quality",      "min_recovery",   "growth_percent",
        "months",       "availability",   "failures_per_device_year",
        "repair_hours", "startup_s",      "rent_per_gpu_hour",
        "min_replicas", "check_requests", "config",
        "config_name"},
       fleet_json},
      {"net", {"node", "fabric", "nodes", "op", "sizes"}, net_json},
      {"simulate",
       {"model", "gpu", "tp", "rate", "concurrency", "dataset", "requests", "scheduler", "kv",
        "sla", "preempt", "host_kv_cache", "prefix_hit_rate", "engine", "engine_version", "config",
        "config_name"},
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

Json handle(const Catalog& catalog, const std::string& endpoint, const Json& request,
            const CancelFlag* cancel, const ApiOptions& options) {
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
    const auto config = request.find("config");
    if (config == request.end() || config->is_null()) return e.answer(catalog, request, cancel, options);
    // A Hugging Face config.json sent as "config" (the page's upload) answers as `--model FILE`:
    // the model it describes (model/zoo.h import_hf_config), under the id its name or
    // "config_name" gives, over a catalog entry of that id. The server reads no file.
    if (request.contains("model"))
      throw InputError("model", request.at("model").dump(), "left out when a config is sent");
    if (!config->is_object())
      throw InputError("config", std::string("a JSON ") + config->type_name(),
                       "a Hugging Face config.json (a JSON object)");
    Catalog with = catalog;
    ModelSpec model = import_hf_config(*config, text(request, "config_name", "config.json"));
    Json named = request;
    named.erase("config");
    named.erase("config_name");
    named["model"] = model.id;
    with.add(std::move(model));
    return e.answer(with, named, cancel, options);
  }
  throw InputError::unknown_name("endpoint", endpoint, endpoints());
}

}  // namespace memwall::ui
