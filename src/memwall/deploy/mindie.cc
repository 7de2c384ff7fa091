// `--emit mindie`: Huawei MindIE Service's config.json for a plan estimated with the MindIE
// engine profile on an Ascend NPU. The fields and their ranges are those of MindIE-LLM's
// "配置参数说明（服务化）" page (docs/zh/user_guide/user_manual/service_parameter_configuration.md)
// at a tag, recorded in data/deploy/mindie-<version>.json; each field written carries the plan
// field it comes from, or says that it is MindIE's documented default.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/deploy/emit.h"
#include "memwall/deploy/emit_detail.h"

namespace memwall::deploy {
namespace {

ConfigTable config_table_from_json(const Json& j, const std::string& origin) {
  ConfigTable t;
  t.engine = require_string(j, "engine", origin);
  t.version = require_string(j, "version", origin);
  t.display = require_string(j, "display", origin);
  t.install_path = require_string(j, "install_path", origin);
  t.launch = require_string(j, "launch", origin);
  t.source = require_string(j, "source", origin);
  t.port = static_cast<int>(require_number(j, "port", origin));
  t.memory_fraction_env = require_string(j, "memory_fraction_env", origin);
  t.memory_fraction_default = require_number(j, "memory_fraction_default", origin);
  t.fields = detail::recorded_keys(require_field(j, "fields", origin), origin);
  return t;
}

// Writes a field of MindIE's table, traced (detail::set_recorded).
struct Writer {
  const ConfigTable& t;
  KeyedEmission& out;
  void set(const std::string& path, const Json& value, const std::string& from) {
    detail::set_recorded(out, t.fields, t.display, path, value, from);
  }
};

// The longest length of the workload's distribution (its top quantile band, or its fixed length).
int64_t longest(const plan::Lengths& l) {
  double m = std::max(l.mean, l.p99);
  for (const auto& p : l.points) m = std::max(m, p.tokens);
  return static_cast<int64_t>(std::ceil(m));
}

// A MindIE modelName: letters, digits, '-', '.', '_', not first or last, at most 256 characters.
std::string model_name(const std::string& id) {
  std::string s;
  for (char c : id)
    s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ? c : '_';
  while (!s.empty() && !std::isalnum(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  while (!s.empty() && !std::isalnum(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.size() > 256) s.resize(256);
  return s.empty() ? "model" : s;
}

}  // namespace

const ConfigTable& mindie_table() {
  static const ConfigTable table = [] {
    const auto [doc, origin] = detail::deploy_document("config_file");
    return config_table_from_json(doc, origin);
  }();
  return table;
}

KeyedEmission mindie_config(const plan::Plan& p, const ModelSpec& model,
                            const plan::InferenceWorkload& w, int pick) {
  const ConfigTable& t = mindie_table();
  const perf::EngineProfile& profile = detail::profile_of(p);
  const plan::ReplicaShape& s = p.shape;
  const Accelerator& a = *s.accelerator;
  auto refuse = [&](const std::string& allowed) {
    throw InputError("--emit", "mindie", allowed);
  };
  if (profile.name != "mindie")
    refuse(fmt::format("a plan estimated with MindIE; plan {} was estimated with {}: rerun the "
                       "plan with --engine mindie",
                       pick, profile.display));
  if (detail::lower(a.vendor) != "huawei")
    refuse(fmt::format("a plan on an Ascend NPU (MindIE Service runs on Huawei Ascend), not {} {}",
                       a.vendor, a.id));
  if (p.prefill)
    refuse("an aggregated plan: MindIE's disaggregated serving (ServerConfig.inferMode dmi) is "
           "deployed by MindIE Motor with a ranktable, which memwall does not write (rerun the "
           "plan with --serving aggregated)");
  const int per_node = s.node ? s.node->devices : 1;
  if (s.devices() > per_node)
    refuse(fmt::format("a plan whose replica fits one node: {} NPUs span {} nodes, and MindIE's "
                       "multi-node inference (BackendConfig.multiNodesInferEnabled) reads its "
                       "devices from a ranktable memwall does not write",
                       s.devices(), (s.devices() + per_node - 1) / per_node));
  if (s.pp > 1)
    refuse(fmt::format("a plan with PP1: config.json's ModelConfig parallel fields (tp, dp, cp, "
                       "sp, moe_tp, moe_ep) have no pipeline stages, and plan {} has PP{}",
                       pick, s.pp));
  if (s.ep > 1)
    refuse(fmt::format("a plan with EP1: MindIE's expert parallelism (ModelConfig moe_ep) is "
                       "documented for DeepSeek-V2/V3/R1 only (docs/zh/user_guide/feature/"
                       "expert_parallel.md), and plan {} splits experts over EP{}",
                       pick, s.ep));
  KeyedEmission out;
  out.pick = pick;
  out.plan_description = p.describe();
  out.display = t.display;
  out.source = t.source;
  out.document = Json::object();
  Writer wr{t, out};

  // The weights and KV formats are the checkpoint's: MindIE reads torch_dtype from its
  // config.json, and an msModelSlim-quantised checkpoint carries its method (W8A8, W4A16) and, for
  // an int8 KV cache, kv_cache_type C8 (docs/zh/user_guide/feature/kv_cache_int8.md: int8 KV only
  // with W8A8 weights).
  switch (s.weights) {
    case Precision::bf16:
    case Precision::fp16:
      out.notes.push_back(fmt::format(
          "weights {}: serve a checkpoint stored in {} (MindIE reads torch_dtype from its "
          "config.json; no field sets it)",
          to_string(s.weights), to_string(s.weights)));
      break;
    case Precision::int8:
    case Precision::int4:
      out.notes.push_back(fmt::format(
          "weights {}: serve a checkpoint quantised by msModelSlim ({}); MindIE reads the method "
          "from its quant_model_description json, no field sets it",
          to_string(s.weights), s.weights == Precision::int8 ? "W8A8" : "W4A16"));
      break;
    default:
      refuse(fmt::format("a plan with bf16, fp16, int8 or int4 weights (MindIE's quantised "
                         "checkpoints), not {}",
                         to_string(s.weights)));
  }
  if (s.kv == Precision::int8) {
    if (s.weights != Precision::int8)
      refuse(fmt::format("an int8 KV cache with int8 (W8A8) weights only (MindIE's KV cache int8 "
                         "comes with a W8A8 checkpoint), not with {} weights",
                         to_string(s.weights)));
    out.notes.push_back(
        "KV int8: the W8A8 checkpoint must carry kv_cache_type C8 (msModelSlim's KV cache "
        "quantisation)");
  } else if (s.kv != Precision::bf16 && s.kv != Precision::fp16) {
    refuse(fmt::format("a plan whose KV cache is in the model's dtype or int8, not {}",
                       to_string(s.kv)));
  }

  const std::string tp_from = fmt::format("plan.shape.tp = {} (tensor-parallel degree)", s.tp);
  const std::string default_from = "MindIE's documented default";
  wr.set("Version", "1.0.0", "the config file's version (fixed)");
  // ServerConfig: the documented safe defaults; the address comes from MIES_CONTAINER_IP in a
  // container.
  wr.set("ServerConfig.ipAddress", "127.0.0.1",
         "MindIE's default; set MIES_CONTAINER_IP to the address clients reach (it takes "
         "precedence; 0.0.0.0 needs allowAllZeroIpListening)");
  wr.set("ServerConfig.port", t.port, default_from + " (the RESTful port)");
  wr.set("ServerConfig.allowAllZeroIpListening", false, default_from);
  const int links = std::clamp(std::max(p.batch_cap, 1000), 1, 4096);
  wr.set("ServerConfig.maxLinkNum", links,
         fmt::format("at least the plan's B* = {} requests in flight per server (default 1000, "
                     "at most 4096)",
                     p.batch_cap));
  wr.set("ServerConfig.httpsEnabled", false,
         "plain HTTP, as the benchmark and the other emitters: MindIE recommends true, with the "
         "tls* certificate fields (terminate TLS in front of the server or set them)");
  wr.set("ServerConfig.inferMode", "standard", "aggregated plan: prefill and decode mixed");
  wr.set("BackendConfig.backendName", "mindieservice_llm_engine", "the only backend");
  wr.set("BackendConfig.modelInstanceNumber", 1,
         "one model instance per server; the plan's replicas are separate servers");
  Json ids = Json::array();
  for (int i = 0; i < s.tp; ++i) ids.push_back(i);
  wr.set("BackendConfig.npuDeviceIds", Json::array({ids}),
         tp_from + ": logical NPU ids 0.." + std::to_string(s.tp - 1) +
             " (as ASCEND_RT_VISIBLE_DEVICES orders them)");
  wr.set("BackendConfig.tokenizerProcessNumber", 8, default_from);
  wr.set("BackendConfig.multiNodesInferEnabled", false,
         fmt::format("the replica fits one node ({} of {} NPUs)", s.devices(), per_node));
  const int64_t in = longest(w.input), out_len = longest(w.output);
  const std::string md = "BackendConfig.ModelDeployConfig.";
  wr.set(md + "maxSeqLen", in + out_len,
         fmt::format("plan workload: longest prompt {} + longest output {} tokens", in, out_len));
  wr.set(md + "maxInputTokenLen", in,
         fmt::format("plan workload: longest prompt {} tokens ({})", in, w.input.description));
  wr.set(md + "truncation", false,
         "a prompt over maxInputTokenLen is an error, not cut (MindIE's default)");
  const std::string mc = md + "ModelConfig[].";
  wr.set(mc + "modelInstanceType", "Standard", "inference (not the mock model)");
  wr.set(mc + "modelName", model_name(model.id), "the plan's model (its zoo id)");
  const std::string weights_path = "/data/weights/" + model_name(model.id);
  wr.set(mc + "modelWeightPath", weights_path,
         fmt::format("where the checkpoint of {} lies: put it there or change the path",
                     model.hf_repos.empty() ? model.id : model.hf_repos.front()));
  wr.set(mc + "worldSize", s.tp, tp_from + ": the NPUs of the instance");
  wr.set(mc + "tp", s.tp, tp_from);
  wr.set(mc + "cpuMemSize", 5, default_from + " (GB of host memory for swapped KV blocks)");
  const double fraction = profile.limits.default_memory_fraction(s.tp);
  wr.set(mc + "npuMemSize", -1,
         fmt::format("the KV cache takes what is left of the memory fraction, {} = {:g} as the "
                     "plan's KV capacity assumes (the launch script sets it)",
                     t.memory_fraction_env, fraction));
  out.env.push_back({t.memory_fraction_env, fmt::format("{:g}", fraction),
                     fmt::format("the memory fraction the plan's KV capacity assumes ({}; "
                                 "MindIE's default {:g})",
                                 profile.display, t.memory_fraction_default)});
  wr.set(mc + "backendType", "atb",
         fmt::format("engine profile {}: the ATB (Ascend Transformer Boost) backend", profile.display));
  wr.set(mc + "trustRemoteCode", false, default_from);
  const auto& lim = profile.limits;
  const std::string limits_from =
      fmt::format("engine profile {} limits (data/engines), which the plan's step times assume",
                  profile.display);
  const std::string sc = "BackendConfig.ScheduleConfig.";
  wr.set(sc + "templateType", lim.chunked_prefill ? "Mix" : "Standard",
         (lim.chunked_prefill ? "chunked prefill (SplitFuse): " : "prefill and decode batched "
                                                                  "apart (no chunked prefill): ") +
             limits_from);
  wr.set(sc + "templateName", "Standard_LLM", "the only scheduling workflow");
  wr.set(sc + "cacheBlockSize", 128, default_from + " (KV block of 128 tokens)");
  wr.set(sc + "maxBatchSize", p.batch_cap,
         fmt::format("plan.batch_cap = {} (most sequences per replica that meet the SLA)",
                     p.batch_cap));
  wr.set(sc + "maxPrefillBatchSize", p.batch_cap,
         "plan.batch_cap: no separate prefill limit (MindIE: 0 or maxBatchSize), prefill batches "
         "bounded by maxPrefillTokens");
  const int64_t prefill_tokens = std::max<int64_t>(lim.max_num_batched_tokens, in);
  wr.set(sc + "maxPrefillTokens", prefill_tokens,
         fmt::format("tokens per prefill batch {}: {}{}", lim.max_num_batched_tokens, limits_from,
                     prefill_tokens > lim.max_num_batched_tokens
                         ? fmt::format(", raised to maxInputTokenLen {}", in)
                         : std::string()));
  wr.set(sc + "prefillTimeMsPerReq", 150, default_from + " (used with supportSelectBatch)");
  wr.set(sc + "prefillPolicyType", 0, default_from + " (FCFS)");
  wr.set(sc + "decodeTimeMsPerReq", 50, default_from + " (used with supportSelectBatch)");
  wr.set(sc + "decodePolicyType", 0, default_from + " (FCFS)");
  wr.set(sc + "maxIterTimes", out_len,
         fmt::format("plan workload: longest output {} tokens ({})", out_len,
                     w.output.description));
  wr.set(sc + "maxPreemptCount", 0, default_from + " (no preemption)");
  wr.set(sc + "supportSelectBatch", false, default_from + " (prefill first each round)");
  wr.set(sc + "maxQueueDelayMicroseconds", 5000, default_from);
  wr.set("LogConfig.dynamicLogLevelValidHours", 2, default_from + " (required)");

  out.notes.push_back(fmt::format(
      "MindIE reserves each request's KV blocks for its prompt and its longest output "
      "(ceil(input / 128) + ceil(maxIterTimes / 128), the maxBatchSize row), where the plan "
      "counts the mean context: where KV memory binds, fewer than maxBatchSize {} sequences may "
      "run",
      p.batch_cap));
  out.notes.push_back(fmt::format(
      "replicas: run {} such servers (one per {} NPUs) behind a load balancer", p.replicas,
      s.tp));
  return out;
}

std::string mindie_script(const KeyedEmission& e) {
  const ConfigTable& t = mindie_table();
  std::string s = fmt::format("#!/bin/sh\n# memwall plan {}: {}\n# engine: {} (fields: {})\n",
                              e.pick, e.plan_description, t.display, t.source);
  s += fmt::format("# config.json: plan-{}-mindie.json, each field from:\n", e.pick);
  for (const auto& k : e.keys) s += fmt::format("#   {} = {}: {}\n", k.flag, k.value, k.from);
  for (const auto& n : e.notes) s += "# note: " + n + "\n";
  for (const auto& v : e.env) s += fmt::format("# {}: {}\nexport {}={}\n", v.flag, v.from, v.flag, v.value);
  s += fmt::format("# copy plan-{}-mindie.json to {}, then from mindie-service:\n", e.pick,
                   t.install_path);
  s += t.launch + "\n";
  return s;
}

}  // namespace memwall::deploy
