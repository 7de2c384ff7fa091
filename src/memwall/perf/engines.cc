// Engine profiles from data/engines/*.json: one file per serving engine, each with its versions'
// overheads, limits and sources (the format is described in docs/infer.md, "Engine profiles").
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/perf/efficiency.h"

namespace memwall::perf {
namespace {

double number(const Json& o, const std::string& key, const std::string& field, double lo, double hi,
              double fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (!it->is_number()) throw InputError(field + "." + key, it->dump(), "a number");
  const double x = it->get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw InputError(field + "." + key, it->dump(), fmt::format("a number in [{}, {}]", lo, hi));
  return x;
}

bool flag(const Json& o, const std::string& key, const std::string& field, bool fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (!it->is_boolean()) throw InputError(field + "." + key, it->dump(), "true or false");
  return it->get<bool>();
}

std::string text(const Json& o, const std::string& key, const std::string& field) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (!it->is_string()) throw InputError(field + "." + key, it->dump(), "a string");
  return it->get<std::string>();
}

// A key with one of two words: false for `no`, true for `yes`, `fallback` when absent.
bool either(const Json& o, const std::string& key, const std::string& field, const char* no,
            const char* yes, bool fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  const std::string a = it->is_string() ? it->get<std::string>() : it->dump();
  if (a != no && a != yes)
    throw InputError(field + "." + key, a, fmt::format("{} or {}", no, yes));
  return a == yes;
}

EngineLimits read_limits(const Json& l, const std::string& field) {
  if (!l.is_object()) throw InputError(field, l.dump(), "an object");
  EngineLimits x;
  x.max_num_seqs = static_cast<int>(number(l, "max_num_seqs", field, 1, 1 << 20, x.max_num_seqs));
  x.max_num_batched_tokens = static_cast<int64_t>(
      number(l, "max_num_batched_tokens", field, 1, 1 << 24, double(x.max_num_batched_tokens)));
  x.chunked_prefill = flag(l, "chunked_prefill", field, x.chunked_prefill);
  x.small_device_bytes = number(l, "small_device_gib", field, 0, 1e6, 0) * kGiB;
  x.small_max_num_seqs = static_cast<int>(number(l, "small_max_num_seqs", field, 0, 1 << 20, 0));
  x.small_max_num_batched_tokens =
      static_cast<int64_t>(number(l, "small_max_num_batched_tokens", field, 0, 1 << 24, 0));
  if (auto it = l.find("small_archs"); it != l.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) x.small_archs.push_back(to_lower(a.get<std::string>()));
  x.cuda_graph_max_batch =
      static_cast<int>(number(l, "cuda_graph_max_batch", field, 0, 1 << 20, 0));
  if (auto it = l.find("cuda_graph_batches"); it != l.end()) {
    if (!it->is_array()) throw InputError(field + ".cuda_graph_batches", it->dump(), "a list");
    for (const auto& b : *it) {
      if (!b.is_number_integer() || b.get<int>() < 1)
        throw InputError(field + ".cuda_graph_batches", b.dump(), "positive integers");
      x.cuda_graph_batches.push_back(b.get<int>());
    }
    std::sort(x.cuda_graph_batches.begin(), x.cuda_graph_batches.end());
  }
  x.reserve_output_kv =
      either(l, "kv_admission", field, "prompt", "reserve_output", x.reserve_output_kv);
  x.memory_fraction_of_free =
      either(l, "memory_fraction_of", field, "total", "free", x.memory_fraction_of_free);
  if (auto it = l.find("memory_fraction"); it != l.end()) {
    auto fraction = [&](const Json& v, const std::string& f) {
      if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() <= 1))
        throw InputError(f, v.dump(), "a fraction in (0, 1]");
      return v.get<double>();
    };
    if (it->is_object()) {
      for (const auto& [size, v] : it->items()) {
        const std::string f = field + ".memory_fraction." + size;
        int tp = 0;
        const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), tp);
        if (ec != std::errc() || end != size.data() + size.size() || tp < 1) throw InputError(f, size, "a tensor-parallel size (a positive whole number)");
        x.memory_fraction_by_tp.emplace_back(tp, fraction(v, f));
      }
      std::sort(x.memory_fraction_by_tp.begin(), x.memory_fraction_by_tp.end());
    } else {
      x.memory_fraction = fraction(*it, field + ".memory_fraction");
    }
  }
  for (const auto& [k, v] : l.items()) {
    static const char* known[] = {"max_num_seqs",         "max_num_batched_tokens",
                                  "chunked_prefill",      "small_device_gib",
                                  "small_max_num_seqs",   "small_max_num_batched_tokens",
                                  "cuda_graph_max_batch", "cuda_graph_batches",
                                  "small_archs",          "kv_admission",
                                  "memory_fraction_of",   "memory_fraction",
                                  "note"};
    // A named copy: clang 14 cannot capture a structured binding in a lambda (C++20 P1091).
    const std::string& key = k;
    if (std::none_of(std::begin(known), std::end(known), [&](const char* n) { return key == n; }))
      throw InputError(field + "." + k, v.dump(),
                       "one of max_num_seqs, max_num_batched_tokens, chunked_prefill, "
                       "small_device_gib, small_max_num_seqs, small_max_num_batched_tokens, "
                       "cuda_graph_max_batch, cuda_graph_batches, small_archs, kv_admission, "
                       "memory_fraction_of, memory_fraction, note");
  }
  return x;
}

}  // namespace

std::vector<EngineProfile> read_engine_profiles(const Json& doc, const std::string& origin) {
  std::vector<EngineProfile> out;
  auto eit = doc.find("engine");
  if (eit == doc.end()) return out;
  const Json& e = *eit;
  const std::string field = origin + ": engine";
  if (!e.is_object()) throw InputError(field, e.dump(), "an object with id, name and versions");
  const std::string id = text(e, "id", field);
  if (id.empty()) throw InputError(field + ".id", "(none)", "the engine id, e.g. vllm");
  const std::string name = text(e, "name", field);
  auto vit = e.find("versions");
  if (vit == e.end() || !vit->is_array() || vit->empty())
    throw InputError(field + ".versions", vit == e.end() ? "(none)" : vit->dump(),
                     "a non-empty list of version objects");
  for (size_t i = 0; i < vit->size(); ++i) {
    const std::string f = fmt::format("{}.versions[{}]", field, i);
    if (!(*vit)[i].is_object()) throw InputError(f, (*vit)[i].dump(), "an object");
    // "inherits": "0.8" - a release that changes a few figures of an earlier one states only
    // those: the earlier entry of the same platform, its fields replaced by this entry's (RFC 7396
    // merge patch; "current" is not inherited).
    Json merged;
    const Json* vp = &(*vit)[i];
    if (auto in = vp->find("inherits"); in != vp->end()) {
      const std::string base = in->is_string() ? in->get<std::string>() : "";
      const std::string plat = to_lower(text(*vp, "platform", f));
      auto parent = std::find_if(vit->begin(), vit->end(), [&](const Json& x) {
        return x.is_object() && !x.contains("inherits") && text(x, "version", f) == base &&
               to_lower(text(x, "platform", f)) == plat;
      });
      if (parent == vit->end())
        throw InputError(f + ".inherits", in->dump(),
                         "the version of another entry of this engine on the same platform");
      merged = *parent;
      merged.erase("current");
      merged.merge_patch(*vp);
      merged.erase("inherits");
      vp = &merged;
    }
    const Json& v = *vp;
    EngineProfile p;
    p.name = to_lower(id);
    p.version = text(v, "version", f);
    p.display =
        fmt::format("{}{}{}", name.empty() ? id : name, p.version.empty() ? "" : " ", p.version);
    p.current = flag(v, "current", f, false);
    p.platform = to_lower(text(v, "platform", f));
    if (!p.platform.empty() && p.platform != "rocm")
      throw InputError(f + ".platform", p.platform, "\"rocm\" or absent (any platform)");
    if (p.platform == "rocm") p.display += " (ROCm)";
    p.through = text(v, "through", f);
    p.date = text(v, "date", f);
    p.evidence = text(v, "evidence", f);
    if (auto a = v.find("aliases"); a != v.end())
      for (const auto& x : *a)
        if (x.is_string()) p.aliases.push_back(to_lower(x.get<std::string>()));
    p.kernel_overhead = us(number(v, "kernel_overhead_us", f, 0, 1e5, 4.0));
    if (auto h = v.find("host_us"); h != v.end()) {
      if (!h->is_object()) throw InputError(f + ".host_us", h->dump(), "an object of microseconds");
      p.host_scheduling = us(number(*h, "scheduling", f + ".host_us", 0, 1e7, 0));
      p.host_sampling = us(number(*h, "sampling", f + ".host_us", 0, 1e7, 0));
      p.host_detokenization = us(number(*h, "detokenization", f + ".host_us", 0, 1e7, 0));
    }
    p.host_overlap = number(v, "host_overlap", f, 0, 1, 0);
    p.step_overhead =
        (p.host_scheduling + p.host_sampling + p.host_detokenization) * (1 - p.host_overlap);
    p.host_per_sequence = us(number(v, "host_us_per_sequence", f, 0, 1e4, 0));
    p.step_overhead_per_sequence = p.host_per_sequence * (1 - p.host_overlap);
    p.fused_elementwise = flag(v, "fused_elementwise", f, true);
    p.gqa_shared_kv_loads = flag(v, "gqa_shared_kv_loads", f, true);
    p.fp8_gemm_rate_scale = number(v, "fp8_gemm_rate_scale", f, 0.01, 2.0, 1.0);
    auto archs = [&](const char* key, std::vector<std::string>& list) {
      const auto a = v.find(key);
      if (a == v.end()) return;
      if (!a->is_array()) throw InputError(f + "." + key, a->dump(), "a list of architecture names");
      for (const auto& x : *a) {
        if (!x.is_string() || x.get<std::string>().empty())
          throw InputError(f + "." + key + "[]", x.dump(), "an architecture name");
        list.push_back(x.get<std::string>());
      }
    };
    archs("fp8_gemm_rate_scale_archs", p.fp8_gemm_rate_scale_archs);
    p.blockwise_fp8_gemm_rate_scale = number(v, "blockwise_fp8_gemm_rate_scale", f, 0.01, 1.0, 1.0);
    archs("blockwise_fp8_gemm_rate_scale_archs", p.blockwise_fp8_gemm_rate_scale_archs);
    p.blockwise_fp8_reference_ratio = number(v, "blockwise_fp8_reference_ratio", f, 0, 1e4, 0);
    archs("mixed_step_gqa_unshared_archs", p.mixed_step_gqa_unshared_archs);
    p.memory_stream_fraction = number(v, "memory_stream_fraction", f, 0.05, 1.0, 1.0);
    p.compute_in_situ_fraction = number(v, "compute_in_situ_fraction", f, 0.05, 1.0, 1.0);
    if (const auto a = v.find("compute_in_situ_fraction_by_arch"); a != v.end()) {
      const std::string k = f + ".compute_in_situ_fraction_by_arch";
      if (!a->is_object())
        throw InputError(k, a->dump(), "an object of architecture name -> fraction (0.05-1)");
      for (const auto& [arch, x] : a->items()) {
        if (arch.empty()) throw InputError(k, "\"\"", "a non-empty architecture name");
        p.compute_in_situ_fraction_by_arch.emplace_back(arch, number(*a, arch, k, 0.05, 1.0, 1.0));
      }
    }
    if (const double t = number(v, "fp8_skinny_gemm_max_tokens", f, -1, 1 << 20, -1);
        t == std::floor(t))
      p.fp8_skinny_gemm_max_tokens = static_cast<int>(t);
    else
      throw InputError(f + ".fp8_skinny_gemm_max_tokens", fmt::format("{}", t),
                       "a whole number of tokens (-1: no separate skinny kernel)");
    p.fp8_library_gemm_stream_fraction =
        number(v, "fp8_library_gemm_stream_fraction", f, 0.05, 1.0, 1.0);
    p.fp8_activation_quant_kernel = flag(v, "fp8_activation_quant_kernel", f, false);
    p.moe_layer_overhead = us(number(v, "moe_layer_overhead_us", f, 0, 1e5, 0));
    p.frontend_per_request = us(number(v, "frontend_us_per_request", f, 0, 1e6, 0));
    p.custom_all_reduce_max_bytes = number(v, "custom_all_reduce_max_mib", f, 0, 1 << 20, 0) * kMiB;
    if (auto l = v.find("limits"); l != v.end()) p.limits = read_limits(*l, f + ".limits");
    if (auto s = v.find("sources"); s != v.end()) {
      if (!s->is_object())
        throw InputError(f + ".sources", s->dump(), "an object figure -> source");
      for (const auto& [k, x] : s->items())
        p.sources.emplace_back(k, x.is_string() ? x.get<std::string>() : x.dump());
    }
    out.push_back(std::move(p));
  }
  // Exactly one current version per engine and platform: the first listed when none says so.
  for (const EngineProfile& first : out) {
    const std::string platform = first.platform;
    auto same = [&](const EngineProfile& p) { return p.platform == platform; };
    if (std::none_of(out.begin(), out.end(), [&](const EngineProfile& p) {
          return same(p) && p.current;
        }))
      std::find_if(out.begin(), out.end(), same)->current = true;
  }
  return out;
}

Json to_json(const EngineProfile& p) {
  Json sources = Json::object();
  for (const auto& [k, v] : p.sources) sources[k] = v;
  Json graphs = Json::array();
  for (int b : p.limits.cuda_graph_batches) graphs.push_back(b);
  Json memory_fraction = p.limits.memory_fraction;
  if (!p.limits.memory_fraction_by_tp.empty()) {
    memory_fraction = Json::object();
    for (const auto& [tp, f] : p.limits.memory_fraction_by_tp) memory_fraction[std::to_string(tp)] = f;
  }
  Json by_arch = Json::object();
  for (const auto& [arch, f] : p.compute_in_situ_fraction_by_arch) by_arch[arch] = f;
  return Json{{"id", p.name},
              {"version", p.version},
              {"platform", p.platform},
              {"through", p.through},
              {"name", p.display},
              {"date", p.date},
              {"kernel_overhead_us", p.kernel_overhead.value() * 1e6},
              {"step_overhead_us", p.step_overhead.value() * 1e6},
              {"host_us",
               {{"scheduling", p.host_scheduling.value() * 1e6},
                {"sampling", p.host_sampling.value() * 1e6},
                {"detokenization", p.host_detokenization.value() * 1e6}}},
              {"host_overlap", p.host_overlap},
              {"host_us_per_sequence", p.host_per_sequence.value() * 1e6},
              {"step_overhead_us_per_sequence", p.step_overhead_per_sequence.value() * 1e6},
              {"fused_elementwise", p.fused_elementwise},
              {"gqa_shared_kv_loads", p.gqa_shared_kv_loads},
              {"fp8_gemm_rate_scale", p.fp8_gemm_rate_scale},
              {"fp8_gemm_rate_scale_archs", p.fp8_gemm_rate_scale_archs},
              {"blockwise_fp8_gemm_rate_scale", p.blockwise_fp8_gemm_rate_scale},
              {"blockwise_fp8_gemm_rate_scale_archs", p.blockwise_fp8_gemm_rate_scale_archs},
              {"blockwise_fp8_reference_ratio", p.blockwise_fp8_reference_ratio},
              {"mixed_step_gqa_unshared_archs", p.mixed_step_gqa_unshared_archs},
              {"memory_stream_fraction", p.memory_stream_fraction},
              {"compute_in_situ_fraction", p.compute_in_situ_fraction},
              {"compute_in_situ_fraction_by_arch", by_arch},
              {"fp8_skinny_gemm_max_tokens", p.fp8_skinny_gemm_max_tokens},
              {"fp8_library_gemm_stream_fraction", p.fp8_library_gemm_stream_fraction},
              {"fp8_activation_quant_kernel", p.fp8_activation_quant_kernel},
              {"moe_layer_overhead_us", p.moe_layer_overhead.value() * 1e6},
              {"frontend_us_per_request", p.frontend_per_request.value() * 1e6},
              {"custom_all_reduce_max_bytes", p.custom_all_reduce_max_bytes},
              {"limits",
               {{"max_num_seqs", p.limits.max_num_seqs},
                {"max_num_batched_tokens", p.limits.max_num_batched_tokens},
                {"chunked_prefill", p.limits.chunked_prefill},
                {"small_device_bytes", p.limits.small_device_bytes},
                {"small_max_num_seqs", p.limits.small_max_num_seqs},
                {"small_max_num_batched_tokens", p.limits.small_max_num_batched_tokens},
                {"cuda_graph_max_batch", p.limits.cuda_graph_max_batch},
                {"cuda_graph_batches", graphs},
                {"kv_admission", p.limits.reserve_output_kv ? "reserve_output" : "prompt"},
                {"memory_fraction_of", p.limits.memory_fraction_of_free ? "free" : "total"},
                {"memory_fraction", memory_fraction}}},
              {"evidence", p.evidence},
              {"sources", sources}};
}

}  // namespace memwall::perf
