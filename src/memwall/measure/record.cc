#include "memwall/measure/record.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <set>
#include <utility>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/perf/efficiency.h"
#include "memwall/train/framework.h"

namespace memwall::measure {
namespace {

template <class E, size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<Metric, 14> kMetrics{{{Metric::ttft, "ttft"},
                                      {Metric::tpot, "tpot"},
                                      {Metric::itl, "itl"},
                                      {Metric::e2e_latency, "e2e_latency"},
                                      {Metric::output_throughput, "output_throughput"},
                                      {Metric::total_throughput, "total_throughput"},
                                      {Metric::prompt_throughput, "prompt_throughput"},
                                      {Metric::request_throughput, "request_throughput"},
                                      {Metric::training_throughput, "training_throughput"},
                                      {Metric::model_tflops, "model_tflops"},
                                      {Metric::mfu, "mfu"},
                                      {Metric::step_time, "step_time"},
                                      {Metric::gpu_hours, "gpu_hours"},
                                      {Metric::memory, "memory"}}};
constexpr Names<Statistic, 6> kStatistics{{{Statistic::value, "value"},
                                           {Statistic::mean, "mean"},
                                           {Statistic::median, "median"},
                                           {Statistic::p90, "p90"},
                                           {Statistic::p95, "p95"},
                                           {Statistic::p99, "p99"}}};
constexpr Names<Mode, 5> kModes{{{Mode::static_batch, "static_batch"},
                                 {Mode::offline, "offline"},
                                 {Mode::concurrency, "concurrency"},
                                 {Mode::request_rate, "request_rate"},
                                 {Mode::training, "training"}}};
constexpr Names<Endpoint, 3> kEndpoints{{{Endpoint::none, "none"},
                                         {Endpoint::completions, "completions"},
                                         {Endpoint::chat, "chat"}}};

template <class E, size_t N>
std::string_view name_of(const Names<E, N>& names, E e) {
  for (const auto& [v, n] : names)
    if (v == e) return n;
  return "?";
}

template <class E, size_t N>
std::string list_of(const Names<E, N>& names) {
  std::string out;
  for (const auto& [v, n] : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

template <class E, size_t N>
E parse_name(const Names<E, N>& names, const Json& v, const std::string& field) {
  if (v.is_string())
    for (const auto& [e, n] : names)
      if (v.get<std::string>() == n) return e;
  throw InputError(field, v.is_string() ? v.get<std::string>() : v.dump(), list_of(names));
}

// Every key of `obj` must be one of `allowed`; the first that is not is refused by name.
void only_keys(const Json& obj, const std::string& where, std::initializer_list<const char*> allowed) {
  if (!obj.is_object()) throw InputError(where, obj.dump().substr(0, 80), "an object");
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string names;
      for (const char* a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      throw InputError(where + "." + k, v.dump().substr(0, 80), "a field of: " + names);
    }
  }
}

const Json* find(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string string_at(const Json& v, const std::string& field) {
  if (!v.is_string() || v.get<std::string>().empty())
    throw InputError(field, v.dump().substr(0, 80), "a non-empty string");
  return v.get<std::string>();
}

std::optional<std::string> opt_string(const Json& obj, const char* key, const std::string& where) {
  const Json* v = find(obj, key);
  if (!v) return std::nullopt;
  return string_at(*v, where + "." + key);
}

double number_at(const Json& v, const std::string& field, double lo, double hi) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
      v.get<double>() > hi)
    throw InputError(field, v.dump().substr(0, 80), fmt::format("a number from {:g} to {:g}", lo, hi));
  return v.get<double>();
}

std::optional<double> opt_number(const Json& obj, const char* key, const std::string& where,
                                 double lo, double hi) {
  const Json* v = find(obj, key);
  if (!v) return std::nullopt;
  return number_at(*v, where + "." + key, lo, hi);
}

std::optional<int64_t> opt_count(const Json& obj, const char* key, const std::string& where,
                                 int64_t lo, int64_t hi) {
  const Json* v = find(obj, key);
  if (!v) return std::nullopt;
  const std::string field = where + "." + key;
  if (!v->is_number_integer() && !(v->is_number_float() && std::isfinite(v->get<double>()) &&
                                   v->get<double>() == std::floor(v->get<double>())))
    throw InputError(field, v->dump().substr(0, 80), fmt::format("a whole number from {} to {}", lo, hi));
  const double x = v->get<double>();
  if (x < double(lo) || x > double(hi))
    throw InputError(field, v->dump(), fmt::format("a whole number from {} to {}", lo, hi));
  return static_cast<int64_t>(x);
}

std::optional<bool> opt_bool(const Json& obj, const char* key, const std::string& where) {
  const Json* v = find(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) throw InputError(where + "." + key, v->dump().substr(0, 80), "true or false");
  return v->get<bool>();
}

std::optional<Precision> opt_precision(const Json& obj, const char* key, const std::string& where) {
  const auto s = opt_string(obj, key, where);
  if (!s) return std::nullopt;
  return parse_precision_or_throw(to_lower(*s), where + "." + key);
}

Lengths lengths_at(const Json& v, const std::string& field) {
  Lengths l;
  if (v.is_number()) {
    l.mean = number_at(v, field, 1, 1e8);
    if (l.mean != std::floor(l.mean)) throw InputError(field, v.dump(), "a whole number of tokens");
    return l;
  }
  only_keys(v, field, {"distribution", "mean", "min", "max", "cv"});
  l.distribution = v.contains("distribution") ? string_at(v.at("distribution"), field + ".distribution")
                                              : "fixed";
  l.mean = number_at(require_field(v, "mean", field), field + ".mean", 1, 1e8);
  l.min = opt_count(v, "min", field, 1, 100'000'000);
  l.max = opt_count(v, "max", field, 1, 100'000'000);
  l.cv = opt_number(v, "cv", field, 0, 100);
  if (l.distribution == "fixed") {
    if (l.min || l.max || l.cv) throw InputError(field + ".distribution", "fixed", "min, max and cv only with uniform or lognormal");
    if (l.mean != std::floor(l.mean)) throw InputError(field + ".mean", fmt::format("{}", l.mean), "a whole number of tokens for a fixed length");
  } else if (l.distribution == "uniform") {
    if (!l.min || !l.max || *l.min > *l.max || l.cv)
      throw InputError(field, v.dump().substr(0, 80), "uniform with min <= max (and no cv)");
    if (std::abs(l.mean - 0.5 * double(*l.min + *l.max)) > 0.5)
      throw InputError(field + ".mean", fmt::format("{}", l.mean),
                       fmt::format("the uniform mean (min + max) / 2 = {}", 0.5 * double(*l.min + *l.max)));
  } else if (l.distribution == "lognormal") {
    if (!l.cv || l.min || l.max) throw InputError(field, v.dump().substr(0, 80), "lognormal with mean and cv");
  } else {
    throw InputError(field + ".distribution", l.distribution, "fixed, uniform or lognormal");
  }
  return l;
}

struct UnitScale {
  const char* unit;
  double to_si;
  Scope scope = Scope::total;
};

// The units each metric may be recorded in, with the factor to its base unit.
std::vector<UnitScale> units_of(Metric m) {
  switch (m) {
    case Metric::ttft:
    case Metric::tpot:
    case Metric::itl:
    case Metric::e2e_latency:
    case Metric::step_time:
      return {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}};
    case Metric::output_throughput:
    case Metric::total_throughput:
    case Metric::prompt_throughput:
    case Metric::training_throughput:
      return {{"tokens/s", 1}, {"tokens/s/gpu", 1, Scope::per_device}};
    case Metric::request_throughput:
      return {{"requests/s", 1}, {"requests/min", 1.0 / 60}};
    case Metric::model_tflops:
      return {{"tflop/s/gpu", 1e12, Scope::per_device}};
    case Metric::mfu:
      return {{"fraction", 1}, {"%", 0.01}};
    case Metric::gpu_hours:
      return {{"gpu-hours", 1}};
    case Metric::memory:
      return {{"b", 1}, {"kib", 1024.0}, {"mib", 1024.0 * 1024}, {"gib", 1024.0 * 1024 * 1024},
              {"mb", 1e6}, {"gb", 1e9}};
  }
  return {};
}

Measured measured_at(const Json& v, const std::string& field, Mode mode) {
  only_keys(v, field, {"name", "statistic", "value", "unit"});
  Measured m;
  m.metric = parse_name(kMetrics, require_field(v, "name", field), field + ".name");
  if (const Json* s = find(v, "statistic")) m.statistic = parse_name(kStatistics, *s, field + ".statistic");
  const bool latency = m.metric == Metric::ttft || m.metric == Metric::tpot ||
                       m.metric == Metric::itl || m.metric == Metric::e2e_latency;
  if (!latency && m.statistic != Statistic::value)
    throw InputError(field + ".statistic", std::string(to_string(m.statistic)),
                     "'value' (or none) for " + std::string(to_string(m.metric)) +
                         "; percentiles are for ttft, tpot, itl and e2e_latency");
  if (is_training(m.metric) != (mode == Mode::training))
    throw InputError(field + ".name", std::string(to_string(m.metric)),
                     mode == Mode::training
                         ? "a training metric (training_throughput, model_tflops, mfu, step_time, "
                           "gpu_hours, memory) for workload.mode training"
                         : "an inference metric (ttft, tpot, itl, e2e_latency, output_throughput, "
                           "total_throughput, prompt_throughput, request_throughput, memory) "
                           "outside training");
  if (m.metric == Metric::prompt_throughput && mode != Mode::static_batch)
    throw InputError(field + ".name", "prompt_throughput",
                     "a metric of workload.mode " + std::string(to_string(mode)) +
                         " (prompt_throughput is the prefill of one static batch)");
  m.value = number_at(require_field(v, "value", field), field + ".value", 0, 1e30);
  if (!(m.value > 0)) throw InputError(field + ".value", "0", "a measured value above 0");
  const std::string unit = to_lower(string_at(require_field(v, "unit", field), field + ".unit"));
  const auto units = units_of(m.metric);
  bool found = false;
  for (const auto& u : units)
    if (unit == u.unit) {
      m.si = m.value * u.to_si;
      m.scope = u.scope;
      found = true;
    }
  if (!found) {
    std::string allowed;
    for (const auto& u : units) allowed += (allowed.empty() ? "" : ", ") + std::string(u.unit);
    throw InputError(field + ".unit", v.at("unit").get<std::string>(),
                     "for " + std::string(to_string(m.metric)) + ": " + allowed);
  }
  if (m.metric == Metric::mfu && m.si > 1)
    throw InputError(field + ".value", fmt::format("{}", m.value), "an MFU of at most 1 (100 %)");
  m.unit = v.at("unit").get<std::string>();
  return m;
}

}  // namespace

std::string_view to_string(Metric m) { return name_of(kMetrics, m); }
std::string_view to_string(Statistic s) { return name_of(kStatistics, s); }
std::string_view to_string(Mode m) { return name_of(kModes, m); }
std::string_view to_string(Endpoint e) { return name_of(kEndpoints, e); }

bool is_latency(Metric m) {
  return m == Metric::ttft || m == Metric::tpot || m == Metric::itl || m == Metric::e2e_latency ||
         m == Metric::step_time || m == Metric::gpu_hours;
}
bool is_training(Metric m) {
  return m == Metric::training_throughput || m == Metric::model_tflops || m == Metric::mfu ||
         m == Metric::step_time || m == Metric::gpu_hours;
}

Record parse_record(const Json& r, const std::string& where, const Catalog& catalog) {
  only_keys(r, where, {"id", "source", "model", "hardware", "stack", "workload", "metric"});
  Record out;
  if (const auto id = opt_string(r, "id", where)) out.id = *id;
  if (const auto s = opt_string(r, "source", where)) out.source = *s;

  // Model: a zoo id, a Hugging Face repository id, or a config.json path.
  out.model.as_given = string_at(require_field(r, "model", where), where + ".model");
  try {
    const ModelSpec* zoo = catalog.find_model(out.model.as_given);
    if (!zoo) zoo = catalog.find_model_by_hf_repo(out.model.as_given);
    // Otherwise a config.json path: reading it now refuses a bad one here, by name.
    out.model.id = zoo ? zoo->id : (catalog.model(out.model.as_given), out.model.as_given);
  } catch (const InputError& e) {
    throw InputError(where + ".model: " + e.what());
  }

  const std::string hw_where = where + ".hardware";
  const Json& hw = require_field(r, "hardware", where);
  only_keys(hw, hw_where, {"accelerator", "count", "node", "fabric", "host_cpu"});
  const std::string acc = string_at(require_field(hw, "accelerator", hw_where), hw_where + ".accelerator");
  const Accelerator* a = catalog.find_accelerator(acc);
  if (!a) throw InputError::unknown_name(hw_where + ".accelerator", acc, catalog.accelerator_names());
  out.hardware.accelerator = a->id;
  out.hardware.count = static_cast<int>(opt_count(hw, "count", hw_where, 1, 1 << 20).value_or(1));
  out.hardware.node = opt_string(hw, "node", hw_where);
  if (out.hardware.node && !catalog.find_node(*out.hardware.node))
    throw InputError::unknown_name(hw_where + ".node", *out.hardware.node, catalog.node_names());
  out.hardware.fabric = opt_string(hw, "fabric", hw_where);
  if (out.hardware.fabric && !catalog.find_fabric(*out.hardware.fabric))
    throw InputError::unknown_name(hw_where + ".fabric", *out.hardware.fabric, catalog.fabric_names());
  out.hardware.host_cpu = opt_string(hw, "host_cpu", hw_where);

  const std::string wl_where = where + ".workload";
  const Json& wl = require_field(r, "workload", where);
  only_keys(wl, wl_where, {"mode", "batch", "concurrency", "requests", "request_rate", "endpoint",
                           "input_tokens", "output_tokens", "seq_len", "tokens"});
  Workload& w = out.workload;
  w.mode = parse_name(kModes, require_field(wl, "mode", wl_where), wl_where + ".mode");
  w.batch = opt_count(wl, "batch", wl_where, 1, 1 << 24);
  w.concurrency = opt_count(wl, "concurrency", wl_where, 1, 1 << 24);
  w.requests = opt_count(wl, "requests", wl_where, 1, 100'000'000);
  w.request_rate = opt_number(wl, "request_rate", wl_where, 1e-6, 1e7);
  if (const Json* v = find(wl, "endpoint"))
    w.endpoint = parse_name(kEndpoints, *v, wl_where + ".endpoint");
  if (const Json* v = find(wl, "input_tokens")) w.input = lengths_at(*v, wl_where + ".input_tokens");
  if (const Json* v = find(wl, "output_tokens")) w.output = lengths_at(*v, wl_where + ".output_tokens");
  w.seq_len = opt_count(wl, "seq_len", wl_where, 1, 64 << 20);
  w.tokens = opt_number(wl, "tokens", wl_where, 1, 1e16);
  // What each mode needs, and nothing another mode's field would silently mean.
  auto require = [&](bool present, const char* key) {
    if (!present)
      throw InputError(fmt::format("{}.{}: required for mode {}", wl_where, key, to_string(w.mode)));
  };
  auto forbid = [&](bool present, const char* key) {
    if (present)
      throw InputError(wl_where + "." + key, "(given)",
                       fmt::format("not a field of mode {}", to_string(w.mode)));
  };
  if (w.mode == Mode::training) {
    require(w.seq_len.has_value(), "seq_len");
    for (auto [p, k] : {std::pair{w.batch.has_value(), "batch"}, {w.concurrency.has_value(), "concurrency"},
                        {w.request_rate.has_value(), "request_rate"}, {w.input.has_value(), "input_tokens"},
                        {w.output.has_value(), "output_tokens"}, {w.requests.has_value(), "requests"},
                        {w.endpoint.has_value(), "endpoint"}})
      forbid(p, k);
  } else {
    require(w.input.has_value(), "input_tokens");
    require(w.output.has_value(), "output_tokens");
    forbid(w.seq_len.has_value(), "seq_len");
    forbid(w.tokens.has_value(), "tokens");
    require(w.mode != Mode::static_batch || w.batch.has_value(), "batch");
    forbid(w.mode != Mode::static_batch && w.batch.has_value(), "batch");
    require(w.mode != Mode::concurrency || w.concurrency.has_value(), "concurrency");
    forbid(w.mode != Mode::concurrency && w.concurrency.has_value(), "concurrency");
    require(w.mode != Mode::request_rate || w.request_rate.has_value(), "request_rate");
    forbid(w.mode != Mode::request_rate && w.request_rate.has_value(), "request_rate");
    if (w.mode == Mode::static_batch &&
        (w.input->distribution != "fixed" || w.output->distribution != "fixed"))
      throw InputError(wl_where + ".input_tokens", w.input->distribution,
                       "fixed lengths for a static batch");
  }

  const std::string st_where = where + ".stack";
  const Json& st = r.contains("stack") ? r.at("stack") : Json::object();
  only_keys(st, st_where,
            {"engine", "framework", "version", "tp", "pp", "ep", "dp", "cp", "vpp",
             "weight_precision", "activation_precision", "kv_precision", "weight_group_size",
             "fp8_recipe", "max_num_seqs", "max_num_batched_tokens", "chunked_prefill",
             "cuda_graphs", "scheduler_steps", "attention_backend", "memory_fraction", "precision",
             "zero", "recompute", "micro_batch", "global_batch", "sequence_parallel"});
  Stack& s = out.stack;
  s.engine = opt_string(st, "engine", st_where);
  s.framework = opt_string(st, "framework", st_where);
  s.version = opt_string(st, "version", st_where);
  const bool training = w.mode == Mode::training;
  if (training && s.engine) throw InputError(st_where + ".engine", *s.engine, "framework (not engine) for training");
  if (!training && s.framework) throw InputError(st_where + ".framework", *s.framework, "engine (not framework) for inference");
  if (s.engine) {
    s.engine = to_lower(*s.engine);
    const auto names = perf::default_efficiency().engine_names();
    if (std::find(names.begin(), names.end(), *s.engine) == names.end())
      throw InputError::unknown_name(st_where + ".engine", *s.engine, names);
  }
  if (s.framework)
    s.framework = train::training_framework(*s.framework, st_where + ".framework").id;
  if (s.version && !s.engine && !s.framework)
    throw InputError(st_where + ".version", *s.version, "a version of the engine or framework named beside it");
  auto size = [&](const char* k) { return static_cast<int>(opt_count(st, k, st_where, 1, 1 << 20).value_or(1)); };
  s.tp = size("tp");
  s.pp = size("pp");
  s.ep = size("ep");
  const bool dp_given = find(st, "dp") != nullptr;
  s.dp = size("dp");
  s.cp = size("cp");
  s.vpp = size("vpp");
  s.weight_precision = opt_precision(st, "weight_precision", st_where);
  s.activation_precision = opt_precision(st, "activation_precision", st_where);
  s.kv_precision = opt_precision(st, "kv_precision", st_where);
  if (auto g = opt_count(st, "weight_group_size", st_where, 1, 1 << 20)) s.weight_group_size = int(*g);
  if (const auto f = opt_string(st, "fp8_recipe", st_where)) s.fp8_recipe = parse_fp8_recipe(to_lower(*f), st_where + ".fp8_recipe");
  s.max_num_seqs = opt_count(st, "max_num_seqs", st_where, 1, 1 << 20);
  s.max_num_batched_tokens = opt_count(st, "max_num_batched_tokens", st_where, 1, 1 << 24);
  s.chunked_prefill = opt_bool(st, "chunked_prefill", st_where);
  s.cuda_graphs = opt_bool(st, "cuda_graphs", st_where);
  if (auto v = opt_count(st, "scheduler_steps", st_where, 1, 1024)) s.scheduler_steps = int(*v);
  s.attention_backend = opt_string(st, "attention_backend", st_where);
  s.memory_fraction = opt_number(st, "memory_fraction", st_where, 0.01, 1.0);
  s.precision = opt_string(st, "precision", st_where);
  if (s.precision && *s.precision != "bf16" && *s.precision != "fp16" && *s.precision != "fp8")
    throw InputError(st_where + ".precision", *s.precision, "bf16, fp16 or fp8");
  if (auto z = opt_count(st, "zero", st_where, 0, 3)) s.zero = int(*z);
  s.recompute = opt_string(st, "recompute", st_where);
  if (s.recompute && *s.recompute != "none" && *s.recompute != "selective" && *s.recompute != "full")
    throw InputError(st_where + ".recompute", *s.recompute, "none, selective or full");
  s.micro_batch = opt_count(st, "micro_batch", st_where, 1, 1 << 20);
  s.global_batch = opt_count(st, "global_batch", st_where, 1, 1 << 30);
  s.sequence_parallel = opt_bool(st, "sequence_parallel", st_where);
  if (training) {
    require(s.micro_batch.has_value(), "stack.micro_batch");
    require(s.global_batch.has_value(), "stack.global_batch");
    for (auto [p, k] : {std::pair{s.max_num_seqs.has_value(), "max_num_seqs"},
                        {s.max_num_batched_tokens.has_value(), "max_num_batched_tokens"},
                        {s.kv_precision.has_value(), "kv_precision"},
                        {s.memory_fraction.has_value(), "memory_fraction"}})
      if (p) throw InputError(st_where + "." + k, "(given)", "an inference setting, not for training");
  } else {
    for (auto [p, k] : {std::pair{s.precision.has_value(), "precision"}, {s.zero.has_value(), "zero"},
                        {s.recompute.has_value(), "recompute"}, {s.micro_batch.has_value(), "micro_batch"},
                        {s.global_batch.has_value(), "global_batch"}, {s.cp != 1, "cp"}, {s.vpp != 1, "vpp"},
                        {s.sequence_parallel.has_value(), "sequence_parallel"}})
      if (p) throw InputError(st_where + "." + k, "(given)", "a training setting, not for inference (use weight_precision etc.)");
  }
  // The devices: tp x pp (x cp) per replica times dp; dp, when not given, is what the count
  // leaves, and must be whole.
  const int64_t per_replica = int64_t(s.tp) * s.pp * (training ? s.cp : 1);
  if (!dp_given) {
    if (out.hardware.count % per_replica != 0)
      throw InputError(fmt::format("{}: hardware.count {} is not a multiple of tp x pp{} = {}", where,
                                   out.hardware.count, training ? " x cp" : "", per_replica));
    s.dp = static_cast<int>(out.hardware.count / per_replica);
  } else if (per_replica * s.dp != out.hardware.count) {
    throw InputError(fmt::format("{}: hardware.count {} is not tp x pp{} x dp = {}", where,
                                 out.hardware.count, training ? " x cp" : "", per_replica * s.dp));
  }

  out.measured = measured_at(require_field(r, "metric", where), where + ".metric", w.mode);
  if (out.measured.metric == Metric::gpu_hours && !w.tokens)
    throw InputError(wl_where + ".tokens: required for metric gpu_hours (the tokens trained)");
  return out;
}

bool is_measurement_document(const Json& doc) {
  return doc.is_object() && doc.contains("format");
}

std::vector<Record> parse_measurements(const Json& doc, const std::string& where,
                                       const Catalog& catalog) {
  const Json* list = &doc;
  if (doc.is_object()) {
    only_keys(doc, where, {"format", "records", "source"});
    const Json& f = require_field(doc, "format", where);
    if (!f.is_string() || f.get<std::string>() != kFormat)
      throw InputError(where + ".format", f.dump().substr(0, 80), kFormat);
    list = &require_field(doc, "records", where);
  }
  if (!list->is_array()) throw InputError(where + ".records", list->type_name(), "a list of records");
  std::vector<Record> out;
  out.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i)
    out.push_back(parse_record((*list)[i], fmt::format("{}: records[{}]", where, i), catalog));
  if (out.empty()) throw InputError(where + ".records", "[]", "at least one record");
  return out;
}

namespace {
Json lengths_json(const Lengths& l) {
  if (l.distribution == "fixed") return static_cast<int64_t>(l.mean);
  Json j = {{"distribution", l.distribution}, {"mean", l.mean}};
  if (l.min) j["min"] = *l.min;
  if (l.max) j["max"] = *l.max;
  if (l.cv) j["cv"] = *l.cv;
  return j;
}
}  // namespace

Json to_json(const Record& r) {
  Json j = Json::object();
  if (!r.id.empty()) j["id"] = r.id;
  if (!r.source.empty()) j["source"] = r.source;
  j["model"] = r.model.id;
  Json hw = {{"accelerator", r.hardware.accelerator}, {"count", r.hardware.count}};
  if (r.hardware.node) hw["node"] = *r.hardware.node;
  if (r.hardware.fabric) hw["fabric"] = *r.hardware.fabric;
  if (r.hardware.host_cpu) hw["host_cpu"] = *r.hardware.host_cpu;
  j["hardware"] = hw;
  const Stack& s = r.stack;
  Json st = Json::object();
  if (s.engine) st["engine"] = *s.engine;
  if (s.framework) st["framework"] = *s.framework;
  if (s.version) st["version"] = *s.version;
  st["tp"] = s.tp;
  st["pp"] = s.pp;
  if (s.ep != 1) st["ep"] = s.ep;
  st["dp"] = s.dp;
  if (s.cp != 1) st["cp"] = s.cp;
  if (s.vpp != 1) st["vpp"] = s.vpp;
  if (s.weight_precision) st["weight_precision"] = std::string(to_string(*s.weight_precision));
  if (s.activation_precision) st["activation_precision"] = std::string(to_string(*s.activation_precision));
  if (s.kv_precision) st["kv_precision"] = std::string(to_string(*s.kv_precision));
  if (s.weight_group_size) st["weight_group_size"] = *s.weight_group_size;
  if (s.fp8_recipe) st["fp8_recipe"] = std::string(to_string(*s.fp8_recipe));
  if (s.max_num_seqs) st["max_num_seqs"] = *s.max_num_seqs;
  if (s.max_num_batched_tokens) st["max_num_batched_tokens"] = *s.max_num_batched_tokens;
  if (s.chunked_prefill) st["chunked_prefill"] = *s.chunked_prefill;
  if (s.cuda_graphs) st["cuda_graphs"] = *s.cuda_graphs;
  if (s.scheduler_steps) st["scheduler_steps"] = *s.scheduler_steps;
  if (s.attention_backend) st["attention_backend"] = *s.attention_backend;
  if (s.memory_fraction) st["memory_fraction"] = *s.memory_fraction;
  if (s.precision) st["precision"] = *s.precision;
  if (s.zero) st["zero"] = *s.zero;
  if (s.recompute) st["recompute"] = *s.recompute;
  if (s.micro_batch) st["micro_batch"] = *s.micro_batch;
  if (s.global_batch) st["global_batch"] = *s.global_batch;
  if (s.sequence_parallel) st["sequence_parallel"] = *s.sequence_parallel;
  j["stack"] = st;
  const Workload& w = r.workload;
  Json wl = {{"mode", std::string(to_string(w.mode))}};
  if (w.batch) wl["batch"] = *w.batch;
  if (w.concurrency) wl["concurrency"] = *w.concurrency;
  if (w.requests) wl["requests"] = *w.requests;
  if (w.request_rate) wl["request_rate"] = *w.request_rate;
  if (w.endpoint) wl["endpoint"] = std::string(to_string(*w.endpoint));
  if (w.input) wl["input_tokens"] = lengths_json(*w.input);
  if (w.output) wl["output_tokens"] = lengths_json(*w.output);
  if (w.seq_len) wl["seq_len"] = *w.seq_len;
  if (w.tokens) wl["tokens"] = *w.tokens;
  j["workload"] = wl;
  Json m = {{"name", std::string(to_string(r.measured.metric))}};
  if (r.measured.statistic != Statistic::value) m["statistic"] = std::string(to_string(r.measured.statistic));
  m["value"] = r.measured.value;
  m["unit"] = r.measured.unit;
  j["metric"] = m;
  return j;
}

Json to_json(const std::vector<Record>& records) {
  Json list = Json::array();
  for (const auto& r : records) list.push_back(to_json(r));
  return {{"format", kFormat}, {"records", list}};
}

}  // namespace memwall::measure
