// `--emit llm-d`: Helm values of llm-d's model-service chart (llm-d-incubation/llm-d-modelservice,
// the keys recorded in data/deploy/llm-d-modelservice-<version>.json from its values.schema.json,
// values.yaml and templates at a commit). The chart runs `vllm serve` for a decode role and, for
// P/D disaggregation, a prefill role; memwall fills in each role's replicas, tensor parallelism,
// accelerator, the model and the vLLM flags of the plan (the same flags `--emit vllm` writes,
// from the vLLM flag table) as the container's args.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "memwall/core/document.h"
#include "memwall/core/error.h"
#include "memwall/deploy/emit.h"
#include "memwall/deploy/emit_detail.h"
#include "memwall/model/counts.h"

namespace memwall::deploy {
namespace {

ValuesTable values_table_from_json(const Json& j, const std::string& origin) {
  ValuesTable t;
  t.chart = require_string(j, "chart", origin);
  t.version = require_string(j, "version", origin);
  t.display = require_string(j, "display", origin);
  t.repository = require_string(j, "repository", origin);
  t.source = require_string(j, "source", origin);
  t.model_command = require_string(j, "model_command", origin);
  t.chart_args = require_field(j, "chart_args", origin).get<std::vector<std::string>>();
  for (const auto& [vendor, a] : require_field(j, "accelerator_types", origin).items())
    t.accelerator_types[vendor] = {require_string(a, "type", origin + " " + vendor),
                                   require_string(a, "resource", origin + " " + vendor)};
  t.service_port = static_cast<int>(require_number(j, "service_port", origin));
  t.proxy_target_port = static_cast<int>(require_number(j, "proxy_target_port", origin));
  const Json& kv = require_field(j, "kv_transfer", origin);
  t.kv_connector = require_string(kv, "kv_connector", origin + " kv_transfer");
  t.kv_role = require_string(kv, "kv_role", origin + " kv_transfer");
  t.side_channel_port = static_cast<int>(require_number(kv, "side_channel_port", origin));
  t.kv_source = require_string(kv, "source", origin + " kv_transfer");
  t.keys = detail::recorded_keys(require_field(j, "keys", origin), origin);
  return t;
}

// Writes a key of the chart's table, traced (detail::set_recorded).
struct Writer {
  const ValuesTable& t;
  KeyedEmission& out;
  void set(const std::string& key, const Json& value, const std::string& from) {
    detail::set_recorded(out, t.keys, t.display, key, value, from);
  }
};

// The model's checkpoint as downloaded: a 16-bit checkpoint for 16-bit and FP8 weights (vLLM
// quantises FP8 at load, as `--emit vllm` has it), else one already quantised to the plan's
// precision (its group scales and 16-bit embeddings not counted).
std::pair<double, std::string> checkpoint_bytes(const ModelSpec& m, Precision w) {
  const double params = count_parameters(m).total;
  const bool sixteen = w == Precision::bf16 || w == Precision::fp16 || w == Precision::fp8_e4m3;
  const double per = sixteen ? 2.0 : bytes_per_element(w);
  return {params * per,
          fmt::format("{:.1f} B parameters x {:g} bytes ({})", params / 1e9, per,
                      sixteen ? "a 16-bit checkpoint" : "a checkpoint quantised to " +
                                                            std::string(to_string(w)))};
}

}  // namespace

const ValuesTable& llm_d_table() {
  static const ValuesTable table = [] {
    const auto [doc, origin] = detail::deploy_document("helm_values");
    return values_table_from_json(doc, origin);
  }();
  return table;
}

KeyedEmission llm_d_values(const plan::Plan& p, const ModelSpec& model, int pick,
                           const std::optional<std::string>& vllm_version) {
  const ValuesTable& t = llm_d_table();
  const perf::EngineProfile& profile = detail::profile_of(p);
  if (profile.name != "vllm")
    throw InputError("--emit", "llm-d",
                     fmt::format("a plan estimated with vLLM ({} runs `vllm serve`); plan {} was "
                                 "estimated with {}: rerun the plan with --engine vllm",
                                 t.display, pick, profile.display));
  Emission e = engine_commands(p, model, pick, "vllm", vllm_version);
  KeyedEmission out;
  out.pick = pick;
  out.plan_description = e.plan_description;
  out.display = t.display;
  out.source = t.source;
  out.document = Json::object();
  Writer w{t, out};

  // Each pool on one node, of a vendor the chart has a type for, the same type for both pools
  // (the chart's accelerator.type is global).
  std::string type;
  for (const auto& c : e.commands) {
    const Accelerator& a = *c.shape.accelerator;
    const auto it = t.accelerator_types.find(detail::lower(a.vendor));
    if (it == t.accelerator_types.end()) {
      std::vector<std::string> vendors;
      for (const auto& [v, _] : t.accelerator_types) vendors.push_back(v);
      throw InputError("--emit", "llm-d",
                       fmt::format("an accelerator of a vendor {} has an accelerator type for "
                                   "({}), not {} {}",
                                   t.display, fmt::join(vendors, ", "), a.vendor, a.id));
    }
    if (!type.empty() && type != it->second.type)
      throw InputError("--emit", "llm-d",
                       fmt::format("prefill and decode pools of one accelerator type ({}'s "
                                   "accelerator.type is global), not {} and {}",
                                   t.display, type, it->second.type));
    type = it->second.type;
    const int per_node = c.shape.node ? c.shape.node->devices : 1;
    if (c.shape.devices() > per_node)
      throw InputError(
          "--emit", "llm-d",
          fmt::format("a plan whose replicas fit one node: a {} replica of {} devices spans {} "
                      "nodes of {}, and {}'s multinode LeaderWorkerSet spreads data-parallel "
                      "workers (parallelism.workers), not tensor or pipeline stages",
                      c.role.empty() ? "server" : c.role, c.shape.devices(),
                      (c.shape.devices() + per_node - 1) / per_node, per_node, t.display));
  }
  const EngineCommand& first = e.commands.front();
  w.set("modelArtifacts.name", first.model,
        "the plan's model (its Hugging Face repository; the chart passes it to vLLM and as "
        "--served-model-name)");
  w.set("modelArtifacts.uri", "hf://" + first.model,
        "the plan's model, downloaded from Hugging Face into the model-storage volume");
  if (model.hf_repos.empty())
    out.notes.push_back(fmt::format(
        "the model {} has no Hugging Face repository in the zoo: point modelArtifacts.uri at its "
        "checkpoint (pvc://CLAIM/PATH) and modelArtifacts.name at the name clients send",
        model.id));
  const auto [bytes, bytes_from] = checkpoint_bytes(model, first.shape.weights);
  // A choice: 10 % over the weights for the tokenizer, config and the Hugging Face cache's files.
  const double gib = std::ceil(bytes * 1.1 / (1024.0 * 1024 * 1024));
  w.set("modelArtifacts.size", fmt::format("{:.0f}Gi", gib),
        fmt::format("the emptyDir the checkpoint downloads into (chart default 5Mi): {} = {:.1f} "
                    "GiB, +10 % (a choice) for the tokenizer and cache files",
                    bytes_from, bytes / (1024.0 * 1024 * 1024)));
  // The deployment's labels (kDeploymentLabels) on every pod, those both pools share: the chart
  // puts modelArtifacts.labels on the prefill and decode pods alike.
  Json labels = Json::object();
  {
    std::vector<std::vector<std::string>> per_pool;
    for (const auto& c : e.commands)
      per_pool.push_back(detail::deployment_label_values(c.model_id, c.shape));
    for (size_t i = 0; i < std::size(kDeploymentLabels); ++i) {
      const std::string& v = per_pool.front()[i];
      const bool shared = std::all_of(per_pool.begin(), per_pool.end(),
                                      [&](const auto& pool) { return pool[i] == v; });
      if (shared && detail::valid_label_value(v)) {
        labels[kDeploymentLabels[i]] = v;
      } else {
        out.notes.push_back(fmt::format(
            "label {} left out: {}", kDeploymentLabels[i],
            shared ? fmt::format("'{}' is not a Kubernetes label value", v)
                   : "the prefill and decode pools differ and modelArtifacts.labels is shared"));
      }
    }
  }
  // Helm merges a map of values into the chart's, so the chart's llm-d.ai/inference-serving label
  // stays.
  w.set("modelArtifacts.labels", labels,
        "the deployment on every pod, read back by `memwall monitor --prometheus --advise` (the "
        "chart's llm-d.ai/inference-serving label stays)");
  w.set("accelerator.type", type,
        fmt::format("plan.shape.accelerator vendor {} (chart device-plugin resource {})",
                    first.shape.accelerator->vendor,
                    t.accelerator_types.at(detail::lower(first.shape.accelerator->vendor))
                        .resource));
  const bool disaggregated = e.commands.size() > 1;
  if (!disaggregated) {
    w.set("routing.proxy.enabled", false,
          "aggregated plan: no prefill pool to route to, so no routing sidecar; vLLM listens on "
          "routing.servicePort itself");
    w.set("prefill.create", false, "aggregated plan: no prefill pool");
  }
  for (const auto& c : e.commands) {
    const std::string role = c.role.empty() ? "decode" : c.role;
    const std::string pool = c.role.empty() ? "plan" : "plan " + c.role + " pool";
    w.set(role + ".replicas", c.replicas,
          c.role == "prefill"
              ? fmt::format("plan.prefill.replicas = {}", c.replicas)
              : fmt::format("plan.replicas = {} (independent servers behind the router)",
                            c.replicas));
    w.set(role + ".parallelism.tensor", c.shape.tp,
          fmt::format("{} shape TP{} (the chart writes --tensor-parallel-size and sizes the pod's "
                      "accelerators as tensor x dataLocal)",
                      pool, c.shape.tp));
    w.set(role + ".nodeSelector", Json{{"memwall.io/accelerator", c.shape.accelerator->id}},
          fmt::format("{} accelerator {}: label the nodes that carry it", pool,
                      c.shape.accelerator->id));
    const std::string ct = role + ".containers[]";
    w.set(ct + ".name", "vllm", "the engine container");
    w.set(ct + ".image", e.table->image,
          fmt::format("{}'s image, the version of the flags (tag not verified for other "
                      "platforms)",
                      e.table->display));
    w.set(ct + ".modelCommand", t.model_command,
          "the chart writes `vllm serve <model> --port --tensor-parallel-size "
          "--served-model-name` before the args");
    w.set(ct + ".mountModelVolume", true,
          "the checkpoint downloads into the model-storage volume (HF_HOME there)");
    // The plan's vLLM flags, less those the chart writes itself; P/D pools get llm-d's NIXL
    // connector setting (kv_both on both roles, the chart's example) instead of producer/consumer.
    Json args = Json::array();
    std::vector<TracedArg> traced;
    for (const auto& a : c.args) {
      if (std::find(t.chart_args.begin(), t.chart_args.end(), a.flag) != t.chart_args.end())
        continue;
      TracedArg x = a;
      if (a.flag == "--kv-transfer-config") {
        x.value = Json{{"kv_connector", t.kv_connector}, {"kv_role", t.kv_role}}.dump();
        x.from = fmt::format(
            "plan.prefill set: disaggregated, this is the {} pool (KV sent over {}; {} on both "
            "roles, as {}'s P/D example)",
            c.role, t.kv_connector, t.kv_role, t.display);
      }
      args.push_back(x.flag);
      if (!x.value.empty()) args.push_back(x.value);
      traced.push_back(x);
    }
    w.set(ct + ".args", args, "the plan's vLLM flags, each traced below");
    for (auto& x : traced) x.flag = fmt::format("{} {}", ct + ".args", x.flag);
    out.keys.insert(out.keys.end(), traced.begin(), traced.end());
    // The port vLLM listens on (the chart's vllmPort): decode pods behind the routing sidecar on
    // its target port, the others on the service port.
    const int port = role == "decode" && disaggregated ? t.proxy_target_port : t.service_port;
    Json ports = Json::array({{{"containerPort", port}, {"protocol", "TCP"}}});
    if (disaggregated) {
      ports.push_back({{"containerPort", t.side_channel_port}, {"protocol", "TCP"}});
      w.set(ct + ".env",
            Json::array({{{"name", "VLLM_NIXL_SIDE_CHANNEL_HOST"},
                          {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}},
                         {{"name", "VLLM_NIXL_SIDE_CHANNEL_PORT"},
                          {"value", std::to_string(t.side_channel_port)}}}),
            "NIXL's side channel on the pod's IP, for the KV transfer between the pools (" +
                t.kv_source + ")");
    }
    w.set(ct + ".ports", ports,
          disaggregated ? fmt::format("vLLM's port ({}) and NIXL's side channel", port)
                        : fmt::format("vLLM's port ({}, routing.servicePort)", port));
    if (c.shape.pp > 1) {
      const std::string& resource =
          t.accelerator_types.at(detail::lower(c.shape.accelerator->vendor)).resource;
      const Json count = {{resource, c.shape.devices()}};
      const std::string from =
          fmt::format("{} shape TP{} x PP{} = {} devices per pod (the chart counts tensor x "
                      "dataLocal otherwise)",
                      pool, c.shape.tp, c.shape.pp, c.shape.devices());
      w.set(ct + ".resources.limits", count, from);
      w.set(ct + ".resources.requests", count, from);
    }
  }
  for (const auto& n : e.notes)
    if (n.rfind("a router that sends", 0) != 0) out.notes.push_back(n);
  out.notes.push_back(
      "the Gateway and InferencePool in front of the pods (llm-d's inference scheduler and, for "
      "P/D, its routing to a prefill pod) are not generated: install them from llm-d's guides; "
      "they select the pods by llm-d.ai/inference-serving and llm-d.ai/role");
  out.engine = std::move(e);
  return out;
}

std::string llm_d_yaml(const KeyedEmission& e) {
  const ValuesTable& t = llm_d_table();
  std::string s = fmt::format(
      "# memwall plan {}: {}\n# chart: {} (keys: {})\n# engine: {} (flags: {})\n"
      "# install: helm repo add {} {} && helm install memwall-plan-{} {}/{} --version {} -f "
      "plan-{}-llm-d.yaml\n",
      e.pick, e.plan_description, t.display, t.source, e.engine->table->display,
      e.engine->table->source, t.chart, t.repository, e.pick, t.chart, t.chart, t.version,
      e.pick);
  for (const auto& k : e.keys) s += fmt::format("#   {}: {}\n", k.flag, k.from);
  for (const auto& n : e.notes) s += "# note: " + n + "\n";
  detail::write_yaml(e.document, 0, s);
  return s;
}

std::string explain_text(const KeyedEmission& e) {
  std::string s = fmt::format("memwall plan {} -> {}\n", e.pick, e.display);
  s += detail::explain_lines(e.keys, "");
  for (const auto& n : e.notes) s += "  note: " + n + "\n";
  return s;
}

}  // namespace memwall::deploy
