#include "memwall/measure/import.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

#include "memwall/core/error.h"
#include "memwall/measure/import_common.h"

namespace memwall::measure {
namespace detail {
namespace {

// A whole or decimal number of a flag's text, the whole text.
std::optional<double> number_of(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const char* kLengthForms = "N, fixed:N, uniform:LO,HI or lognormal:MEAN,CV (tokens per request)";
const char* kListForms =
    "fixed (the list's mean), uniform (its min and max), uniform:LO,HI (every length within) or "
    "lognormal (its mean and cv)";

int64_t whole_tokens(std::string_view s, const std::string& option, const std::string& text) {
  const auto v = number_of(s);
  if (!v || *v < 1 || *v > 1e8 || *v != std::floor(*v))
    throw InputError(option, text, kLengthForms);
  return static_cast<int64_t>(*v);
}

std::pair<int64_t, int64_t> bounds_of(std::string_view s, const std::string& option,
                                      const std::string& text) {
  const size_t comma = s.find(',');
  if (comma == std::string_view::npos) throw InputError(option, text, kLengthForms);
  const int64_t lo = whole_tokens(s.substr(0, comma), option, text);
  const int64_t hi = whole_tokens(s.substr(comma + 1), option, text);
  if (lo > hi) throw InputError(option, text, "uniform:LO,HI with LO <= HI");
  return {lo, hi};
}

}  // namespace

Json lengths_from_flag(const std::optional<std::string>& flag, const std::string& option,
                       const std::string& why) {
  if (!flag) throw InputError(fmt::format("{}: required: {}", option, why));
  const std::string& t = *flag;
  const std::string_view s(t);
  if (s.rfind("uniform:", 0) == 0) {
    const auto [lo, hi] = bounds_of(s.substr(8), option, t);
    return {{"distribution", "uniform"}, {"mean", 0.5 * double(lo + hi)}, {"min", lo}, {"max", hi}};
  }
  if (s.rfind("lognormal:", 0) == 0) {
    const std::string_view rest = s.substr(10);
    const size_t comma = rest.find(',');
    const auto mean =
        comma == std::string_view::npos ? std::nullopt : number_of(rest.substr(0, comma));
    const auto cv =
        comma == std::string_view::npos ? std::nullopt : number_of(rest.substr(comma + 1));
    if (!mean || !cv || *mean < 1 || *cv < 0 || *cv > 100)
      throw InputError(option, t, kLengthForms);
    return {{"distribution", "lognormal"}, {"mean", *mean}, {"cv", *cv}};
  }
  return whole_tokens(s.rfind("fixed:", 0) == 0 ? s.substr(6) : s, option, t);
}

Json lengths_from_list(const Json& list, const std::string& field,
                       const std::optional<std::string>& flag, const std::string& option,
                       bool skip_zeros, std::vector<std::string>& notes) {
  if (!list.is_array())
    throw InputError(field, list.dump().substr(0, 80), "a list of token counts");
  std::vector<int64_t> v;
  v.reserve(list.size());
  size_t zeros = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const int64_t n = file_count(list[i], fmt::format("{}[{}]", field, i), 0);
    if (n == 0 && skip_zeros) {
      ++zeros;
      continue;
    }
    if (n == 0)
      throw InputError(fmt::format("{}[{}]", field, i), "0", "a length of at least 1 token");
    v.push_back(n);
  }
  if (zeros > 0)
    notes.push_back(
        fmt::format("{}: {} entries of 0 tokens (failed requests) left out", field, zeros));
  if (v.empty()) throw InputError(field, "[]", "at least one request's length");
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  double sum = 0;
  for (int64_t n : v) sum += double(n);
  const double mean = sum / double(v.size());
  double ss = 0;
  for (int64_t n : v) ss += (double(n) - mean) * (double(n) - mean);
  // The population standard deviation.
  return lengths_from_stats({v.size(), *lo_it, *hi_it, mean, std::sqrt(ss / double(v.size()))},
                            field, flag, option, notes);
}

Json lengths_from_stats(const LengthStats& s, const std::string& field,
                        const std::optional<std::string>& flag, const std::string& option,
                        std::vector<std::string>& notes) {
  const int64_t lo = s.min, hi = s.max;
  const double mean = s.mean;
  // A summary's mean is a float sum over the requests: rounding is allowed for.
  const double slack = 1e-9 * double(hi);
  if (s.requests == 0 || lo < 1 || lo > hi || !(mean >= double(lo) - slack) ||
      !(mean <= double(hi) + slack) || !(s.std_dev >= 0))
    throw InputError(field,
                     fmt::format("{} requests from {} to {} tokens, mean {:.6g}, std {:.6g}",
                                 s.requests, lo, hi, mean, s.std_dev),
                     "at least one request, lengths from 1 token, min <= mean <= max");
  const std::string range =
      fmt::format("{} requests from {} to {} tokens, mean {:.6g}", s.requests, lo, hi, mean);
  if (!flag) {
    if (lo == hi) return lo;
    throw InputError(fmt::format("{}: the lengths vary ({}); say how to read them with {} {}",
                                 field, range, option, kListForms));
  }
  const std::string& t = *flag;
  if (const auto n = number_of(t.rfind("fixed:", 0) == 0 ? std::string_view(t).substr(6) : t)) {
    // A length stated beside the file's own lengths must be the file's.
    if (lo != hi || double(lo) != *n)
      throw InputError(option, t,
                       fmt::format("the lengths {} lists ({}), or {}", field, range, kListForms));
    return lo;
  }
  if (t == "fixed") {
    const auto fixed = static_cast<int64_t>(std::llround(mean));
    if (lo != hi)
      notes.push_back(
          fmt::format("{}: {}: recorded as fixed {} ({} fixed)", field, range, fixed, option));
    return fixed;
  }
  if (t == "uniform" || t.rfind("uniform:", 0) == 0) {
    auto [a, b] =
        t == "uniform" ? std::pair{lo, hi} : bounds_of(std::string_view(t).substr(8), option, t);
    if (lo < a || hi > b)
      throw InputError(option, t,
                       fmt::format("bounds holding every length of {} ({})", field, range));
    notes.push_back(fmt::format("{}: {}: recorded as uniform over [{}, {}] ({} {})", field, range,
                                a, b, option, t));
    return {{"distribution", "uniform"}, {"mean", 0.5 * double(a + b)}, {"min", a}, {"max", b}};
  }
  if (t == "lognormal") {
    const double cv = s.std_dev / mean;
    notes.push_back(
        fmt::format("{}: {}: recorded as lognormal with that mean and cv {:.6g} ({} lognormal)",
                    field, range, cv, option));
    return {{"distribution", "lognormal"}, {"mean", mean}, {"cv", cv}};
  }
  throw InputError(option, t,
                   std::string(kListForms) + ", since the file lists each request's length");
}

namespace {

// Python's json.dumps writes float('inf') and float('nan') as the bare tokens Infinity,
// -Infinity and NaN, which JSON (RFC 8259) has no place for: outside strings they become the
// strings "Infinity", "-Infinity" and "NaN", so each reader decides where such a value is
// allowed. Written by hand: nlohmann-json has no option for them.
std::string quote_python_tokens(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (const std::string_view token : {"-Infinity", "Infinity", "NaN"})
      if (text.compare(i, token.size(), token) == 0) {
        out += '"';
        out += token;
        out += '"';
        i += token.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

std::vector<std::pair<Json, std::string>> json_lines(const std::string& raw,
                                                     const std::string& where,
                                                     bool python_tokens) {
  const std::string text = python_tokens ? quote_python_tokens(raw) : raw;
  std::vector<std::pair<Json, std::string>> runs;
  try {
    runs.emplace_back(parse_document(text, where), where);
  } catch (const InputError& whole) {
    size_t start = 0;
    int line = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find('\n', start), text.size());
      ++line;
      const std::string part = text.substr(start, end - start);
      if (part.find_first_not_of(" \t\r") != std::string::npos)
        runs.emplace_back(parse_document(part, fmt::format("{}:{}", where, line)),
                          fmt::format("{}:{}", where, line));
      start = end + 1;
    }
    if (runs.empty()) throw;
  }
  for (const auto& [run, w] : runs)
    if (!run.is_object()) throw InputError(w, run.dump().substr(0, 80), "a JSON object of results");
  return runs;
}

void only_fields(const Json& obj, const std::string& where, const std::set<std::string>& allowed,
                 const std::string& allowed_text) {
  if (!obj.is_object()) throw InputError(where, obj.dump().substr(0, 80), "an object");
  for (const auto& [k, v] : obj.items())
    if (!allowed.count(k)) throw InputError(where + "." + k, v.dump().substr(0, 80), allowed_text);
}

const Json* field_or_null(const Json& obj, const std::string& key) {
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::string> opt_string(const Json& obj, const char* key, const std::string& where) {
  const Json* v = field_or_null(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) throw InputError(where + "." + key, v->dump().substr(0, 80), "a string");
  return v->get<std::string>();
}

namespace {

// {"name": ..., "statistic": ..., "value": ..., "unit": ...} (statistic omitted when "value").
Json metric(const char* name, const char* statistic, double value, const char* unit) {
  Json m = {{"name", name}};
  if (std::string_view(statistic) != "value") m["statistic"] = statistic;
  m["value"] = value;
  m["unit"] = unit;
  return m;
}

}  // namespace

void add_metric_record(const Json& base, const std::string& id, const std::string& where,
                       const std::string& key, double value, const char* name,
                       const char* statistic, const char* unit, ZeroValue zero,
                       std::vector<Json>& out, std::vector<std::string>& notes) {
  if (value == 0 && zero == ZeroValue::refused)
    throw InputError(where + "." + key, "0", "a measured value above 0");
  if (value == 0) {
    notes.push_back(
        fmt::format("{}: not imported: {} is 0 (no request measured it: the endpoint "
                    "did not stream, or every output was one token)",
                    where, key));
    return;
  }
  Json r = base;
  r["id"] = id;
  r["metric"] = metric(name, statistic, value, unit);
  out.push_back(std::move(r));
}

double file_number(const Json& v, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw InputError(field, v.dump().substr(0, 80), "a number >= 0");
  return v.get<double>();
}

int64_t file_count(const Json& v, const std::string& field, int64_t lo) {
  const bool whole =
      v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                v.get<double>() == std::floor(v.get<double>()));
  if (!whole || v.get<double>() < double(lo) || v.get<double>() > 1e15)
    throw InputError(field, v.dump().substr(0, 80), fmt::format("a whole number from {}", lo));
  return static_cast<int64_t>(v.get<double>());
}

Json record_base(const ImportOptions& o, const std::string& where,
                 const std::optional<std::string>& file_model, const std::string& file_model_field,
                 const std::string& engine_why, const Catalog& catalog,
                 std::vector<std::string>& notes) {
  // The model: --model, else the file's own name for it.
  if (o.model && file_model && *o.model != *file_model)
    notes.push_back(fmt::format("{}: {} '{}' replaced by --model {}", where, file_model_field,
                                *file_model, *o.model));
  const std::optional<std::string>& name = o.model ? o.model : file_model;
  if (!name) throw InputError(fmt::format("--model: required: {} does not name the model", where));
  const std::string model_field =
      o.model ? std::string("--model") : where + ": " + file_model_field;
  try {
    if (!catalog.find_model(*name) && !catalog.find_model_by_hf_repo(*name))
      (void)catalog.model(*name);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}{}", model_field, e.what(),
                                 o.model ? "" : " (give --model with a zoo id or a config.json)"));
  }
  if (!o.accelerator)
    throw InputError(
        fmt::format("--gpu: required: {} does not say which accelerator ran it", where));
  if (!o.engine) throw InputError(fmt::format("--engine: required: {}", engine_why));
  if (o.engine_version && o.engine_version->empty())
    throw InputError("--engine-version", "", "a version such as 0.10.2");

  Json stack = {{"engine", *o.engine}};
  if (o.engine_version)
    stack["version"] = *o.engine_version;
  else
    notes.push_back(
        fmt::format("{}: no --engine-version: predicted with the {} profile's current version",
                    where, *o.engine));
  const std::pair<const char*, const std::optional<int>*> sizes[] = {
      {"tp", &o.tp}, {"pp", &o.pp}, {"ep", &o.ep}, {"dp", &o.dp}};
  for (const auto& [k, v] : sizes)
    if (*v) stack[k] = **v;
  const std::pair<const char*, const std::optional<std::string>*> precisions[] = {
      {"weight_precision", &o.weight_precision},
      {"activation_precision", &o.activation_precision},
      {"kv_precision", &o.kv_precision}};
  for (const auto& [k, v] : precisions)
    if (*v) stack[k] = **v;
  if (o.max_num_seqs) stack["max_num_seqs"] = *o.max_num_seqs;
  if (o.max_num_batched_tokens) stack["max_num_batched_tokens"] = *o.max_num_batched_tokens;
  if (o.memory_fraction) stack["memory_fraction"] = *o.memory_fraction;

  const int64_t per_replica = int64_t(o.tp.value_or(1)) * o.pp.value_or(1) * o.dp.value_or(1);
  Json hw = {{"accelerator", *o.accelerator},
             {"count", o.devices ? int64_t(*o.devices) : per_replica}};
  if (o.node) hw["node"] = *o.node;
  if (o.fabric) hw["fabric"] = *o.fabric;
  if (o.host_cpu) hw["host_cpu"] = *o.host_cpu;
  return {{"model", *name}, {"hardware", hw}, {"stack", stack}};
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::pair<std::string, std::string>> bar_fields(const std::string& text,
                                                            const std::string& where,
                                                            bool last_colon,
                                                            const std::string& schema) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream fields(text);
  std::string field;
  while (std::getline(fields, field, '|')) {
    if (trimmed(field).empty()) continue;
    const size_t colon = last_colon ? field.rfind(':') : field.find(':');
    if (colon == std::string::npos)
      throw InputError(where, trimmed(field),
                       "fields 'key: value' separated by '|' (" + schema + ")");
    out.emplace_back(trimmed(field.substr(0, colon)), field.substr(colon + 1));
  }
  return out;
}

std::optional<IterationHeader> iteration_header(const std::string& text, size_t pos) {
  const size_t bar = text.find('|', pos);
  const size_t slash = text.find('/', pos);
  if (bar == std::string::npos || slash == std::string::npos || slash > bar) return std::nullopt;
  auto whole = [](const std::string& text_part) -> std::optional<int64_t> {
    const std::string s = trimmed(text_part);
    if (s.empty() || s.size() >= 15 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoll(s);
  };
  const auto n = whole(text.substr(pos, slash - pos));
  const auto m = whole(text.substr(slash + 1, bar - slash - 1));
  if (!n || !m) return std::nullopt;
  return IterationHeader{*n, *m, bar};
}

std::string without_ansi(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    // ECMA-48 CSI: ESC '[' parameter and intermediate bytes (0x20-0x3f), one final byte
    // (0x40-0x7e).
    if (i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && line[i] >= 0x20 && line[i] <= 0x3f) ++i;
    }
  }
  return out;
}

namespace {

template <class T>
T required_flag(const std::optional<T>& v, const char* flag, const std::string& why) {
  if (!v) throw InputError(fmt::format("{}: required: {}", flag, why));
  return *v;
}

// The flag's value, or the log's where it printed one; the two must agree.
std::optional<int64_t> flag_or_log(const std::optional<int64_t>& flag,
                                   const std::optional<int64_t>& printed, const char* name,
                                   const std::string& log) {
  if (flag && printed && *flag != *printed)
    throw InputError(name, std::to_string(*flag), fmt::format("{} ({} prints it)", *printed, log));
  return flag ? flag : printed;
}

}  // namespace

Json training_base(const ImportOptions& o, const TrainingJob& job,
                   std::vector<std::string>& notes) {
  const std::string& log = job.log;
  const std::string model = required_flag(
      o.model, "--model", fmt::format("{} does not name the model (zoo id or config.json)", log));
  const std::string gpu =
      required_flag(o.accelerator, "--gpu", log + " does not name the accelerator");
  const int gpus =
      required_flag(o.devices, "--gpus", log + " does not say how many GPUs ran (WORLD_SIZE)");
  const int tp = required_flag(o.tp, "--tp", fmt::format("{} does not print {}", log, job.tp_name));
  const int pp = required_flag(o.pp, "--pp", fmt::format("{} does not print {}", log, job.pp_name));
  const int64_t micro =
      required_flag(flag_or_log(o.micro_batch, job.micro_batch, "--micro-batch", log),
                    "--micro-batch", fmt::format("{} does not print {}", log, job.micro_name));
  const int64_t global =
      required_flag(flag_or_log(o.global_batch, job.global_batch, "--global-batch", log),
                    "--global-batch", fmt::format("{} does not print {}", log, job.global_name));
  const int64_t seq =
      required_flag(flag_or_log(o.seq_len, job.seq_len, "--seq-len", log), "--seq-len",
                    fmt::format("{} does not print {}", log, job.seq_name));
  const std::optional<int64_t> cp_flag =
      o.cp ? std::optional<int64_t>(*o.cp) : std::optional<int64_t>();
  const int64_t cp = flag_or_log(cp_flag, job.cp, "--cp", log).value_or(1);
  if (cp < 1 || cp > 1 << 20) throw InputError("--cp", std::to_string(cp), "a size from 1");
  const int64_t model_parallel = int64_t(tp) * pp * cp;
  if (gpus % model_parallel != 0)
    throw InputError("--gpus", std::to_string(gpus),
                     fmt::format("a multiple of tp x pp x cp = {}", model_parallel));
  const int64_t dp = gpus / model_parallel;
  if (global % (micro * dp) != 0)
    throw InputError("--micro-batch", std::to_string(micro),
                     fmt::format("a micro-batch whose x DP {} divides the global batch {} (the "
                                 "global batch is DP x micro-batch x accumulation steps)",
                                 dp, global));
  Json stack = {
      {"framework", job.framework}, {"tp", tp}, {"pp", pp}, {"dp", dp}, {"micro_batch", micro},
      {"global_batch", global}};
  if (o.framework_version) stack["version"] = *o.framework_version;
  if (cp != 1) stack["cp"] = cp;
  if (o.ep) stack["ep"] = *o.ep;
  if (o.vpp) stack["vpp"] = *o.vpp;
  if (o.training_precision) stack["precision"] = *o.training_precision;
  if (o.zero) stack["zero"] = *o.zero;
  if (o.recompute) stack["recompute"] = *o.recompute;
  Json hw = {{"accelerator", gpu}, {"count", gpus}};
  if (o.node) hw["node"] = *o.node;
  if (o.fabric) hw["fabric"] = *o.fabric;
  if (o.host_cpu) hw["host_cpu"] = *o.host_cpu;
  if (!o.training_precision)
    notes.push_back(
        fmt::format("no --precision: {} does not print it; memwall train's default", log));
  return {{"model", model},
          {"hardware", hw},
          {"stack", stack},
          {"workload", {{"mode", "training"}, {"seq_len", seq}}},
          {"source", job.source}};
}

std::vector<Record> checked(const std::vector<Json>& records, const std::string& where,
                            const Catalog& catalog) {
  if (records.empty()) throw InputError(where + ": no measurement memwall can import");
  std::vector<Record> out;
  out.reserve(records.size());
  for (const Json& r : records) {
    // A record's flags-given parts are named by the flag in the message, its id says which one.
    try {
      out.push_back(
          parse_record(r, fmt::format("{}: record {}", where, r.value("id", "?")), catalog));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} (from the flags or the file)", e.what()));
    }
  }
  return out;
}

}  // namespace detail

std::vector<std::string> import_formats() {
  return {"vllm-serve",   "vllm-throughput", "vllm-latency", "sglang-serve", "llama-bench",
          "guidellm",     "inference-perf",  "llm-d-report", "genai-perf",   "aiperf",
          "megatron-log", "torchtitan-log",  "nanotron-log"};
}

std::vector<Record> import_text(const std::string& text, const std::string& where,
                                const ImportOptions& o, const Catalog& catalog,
                                std::vector<std::string>& notes) {
  if (o.batch && o.format != "vllm-latency")
    throw InputError("--batch", std::to_string(*o.batch),
                     "no --batch with --format " + o.format +
                         " (the file records its load; --batch is vllm-latency's --batch-size)");
  if (o.load_type && o.format != "inference-perf" && o.format != "llm-d-report")
    throw InputError("--load-type", *o.load_type,
                     "no --load-type with --format " + o.format +
                         " (the file records its load; --load-type is the arrival process of an "
                         "inference-perf or llm-d-report rate stage)");
  std::vector<Json> records;
  if (o.format == "vllm-serve")
    records = detail::import_vllm_serve(text, where, o, catalog, notes);
  else if (o.format == "vllm-throughput")
    records = detail::import_vllm_throughput(text, where, o, catalog, notes);
  else if (o.format == "vllm-latency")
    records = detail::import_vllm_latency(text, where, o, catalog, notes);
  else if (o.format == "sglang-serve")
    records = detail::import_sglang_serve(text, where, o, catalog, notes);
  else if (o.format == "llama-bench")
    records = detail::import_llama_bench(text, where, o, catalog, notes);
  else if (o.format == "guidellm")
    records = detail::import_guidellm(text, where, o, catalog, notes);
  else if (o.format == "inference-perf")
    records = detail::import_inference_perf(text, where, o, catalog, notes);
  else if (o.format == "llm-d-report")
    records = detail::import_llmd_report(text, where, o, catalog, notes);
  else if (o.format == "megatron-log")
    records = detail::import_megatron_log(text, where, o, catalog, notes);
  else if (o.format == "torchtitan-log")
    records = detail::import_torchtitan_log(text, where, o, catalog, notes);
  else if (o.format == "nanotron-log")
    records = detail::import_nanotron_log(text, where, o, catalog, notes);
  else if (o.format == "genai-perf" || o.format == "aiperf")
    records = detail::import_profile_export(text, where, o, catalog, notes);
  else
    throw InputError::unknown_name("--format", o.format, import_formats());
  return detail::checked(records, where, catalog);
}

std::vector<Record> import_file(const std::string& path, const ImportOptions& o,
                                const Catalog& catalog, std::vector<std::string>& notes) {
  return import_text(read_input_file(path, "file", kMaxDocumentBytes), path, o, catalog, notes);
}

}  // namespace memwall::measure
