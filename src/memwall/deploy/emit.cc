#include "memwall/deploy/emit.h"

#include "memwall/deploy/emit_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <regex>
#include <stdexcept>

#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/infer/memory_plan.h"
#include "memwall/perf/efficiency.h"

namespace memwall::deploy {

namespace detail {

std::string quote_shell(const std::string& s) {
  if (s.find_first_of(" {}\"'$") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_yaml(const Json& v, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      out += pad + k + ":";
      if ((x.is_object() || x.is_array()) && !x.empty()) {
        out += "\n";
        write_yaml(x, indent + 2, out);
      } else {
        out += " " + x.dump() + "\n";
      }
    }
  } else if (v.is_array()) {
    for (const auto& x : v) {
      if (x.is_object() && !x.empty()) {
        std::string item;
        write_yaml(x, indent + 2, item);
        item.replace(static_cast<size_t>(indent), 2, "- ");
        out += item;
      } else {
        out += pad + "- " + x.dump() + "\n";
      }
    }
  }
}

const perf::EngineProfile& profile_of(const plan::Plan& p) {
  return perf::default_efficiency().engine(plan_engine(p),
                                           perf::engine_platform(*p.shape.accelerator));
}

// At most 63 characters, alphanumerics with '-', '_' and '.' inside.
bool valid_label_value(const std::string& v) {
  static const std::regex re("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  return v.size() <= 63 && std::regex_match(v, re);
}

std::vector<std::string> deployment_label_values(const std::string& model_id,
                                                 const plan::ReplicaShape& shape) {
  std::vector<std::string> v = {model_id,
                                shape.accelerator->id,
                                std::to_string(shape.tp),
                                std::to_string(shape.pp),
                                std::string(to_string(shape.weights)),
                                std::string(to_string(shape.kv))};
  if (v.size() != std::size(kDeploymentLabels)) throw std::logic_error("deployment labels");
  return v;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

std::string explain_lines(const std::vector<TracedArg>& args, const std::string& role) {
  std::string s;
  for (const auto& a : args)
    s += fmt::format("  {}{} {} <- {}\n", role.empty() ? "" : role + ": ", a.flag, a.value, a.from);
  return s;
}

std::pair<Json, std::string> deploy_document(const std::string& root) {
  std::optional<std::pair<Json, std::string>> found;
  for (const auto& f : data::embedded_files()) {
    const std::string path(f.path);
    if (path.rfind("deploy/", 0) != 0) continue;
    const std::string origin = "built-in data/" + path;
    const Json doc = parse_document(f.content, origin);
    if (!doc.contains(root)) continue;
    if (found) throw std::logic_error("two " + root + " files in data/deploy");
    found = {doc[root], origin};
  }
  if (!found) throw std::logic_error("no " + root + " file in data/deploy");
  return *found;
}

std::map<std::string, RecordedKey> recorded_keys(const Json& keys, const std::string& origin) {
  std::map<std::string, RecordedKey> out;
  for (const auto& [key, spec] : keys.items()) {
    RecordedKey k;
    k.type = require_string(spec, "type", origin + " " + key);
    if (spec.contains("values")) k.values = spec["values"].get<std::vector<std::string>>();
    out[key] = k;
  }
  return out;
}

bool of_recorded_type(const Json& v, const std::string& type) {
  auto all = [&](auto pred) { return v.is_array() && std::all_of(v.begin(), v.end(), pred); };
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "boolean") return v.is_boolean();
  if (type == "map") return v.is_object();
  if (type == "string-list") return all([](const Json& x) { return x.is_string(); });
  if (type == "k8s-list") return all([](const Json& x) { return x.is_object(); });
  if (type == "integer-list-list")
    return all([](const Json& row) {
      return row.is_array() && std::all_of(row.begin(), row.end(),
                                           [](const Json& x) { return x.is_number_integer(); });
    });
  return false;
}

void set_recorded(KeyedEmission& out, const std::map<std::string, RecordedKey>& keys,
                  const std::string& display, const std::string& key, const Json& value,
                  const std::string& from) {
  const auto it = keys.find(key);
  if (it == keys.end()) throw std::logic_error(fmt::format("{} is not a key of {}", key, display));
  const auto& allowed = it->second.values;
  if (!of_recorded_type(value, it->second.type) ||
      (!allowed.empty() &&
       std::find(allowed.begin(), allowed.end(), value.get<std::string>()) == allowed.end()))
    throw std::logic_error(fmt::format("{} = {} is not a value of {}", key, value.dump(), display));
  Json* node = &out.document;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool item = part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0;
    if (item) part.resize(part.size() - 2);
    if (dot == std::string::npos) {
      (*node)[part] = value;
      break;
    }
    node = &(*node)[part];
    if (item) {
      if (!node->is_array() || node->empty()) *node = Json::array({Json::object()});
      node = &(*node)[0];
    }
    start = dot + 1;
  }
  out.keys.push_back({key, value.is_string() ? value.get<std::string>() : value.dump(), from});
}

}  // namespace detail

namespace {

using detail::profile_of;
using detail::quote_shell;
using detail::deployment_label_values;
using detail::valid_label_value;
using detail::write_yaml;

FlagTable table_from_json(const Json& j, const std::string& origin) {
  FlagTable t;
  t.engine = require_string(j, "engine", origin);
  t.version = require_string(j, "version", origin);
  t.display = require_string(j, "display", origin);
  t.launch = require_string(j, "launch", origin);
  t.model_flag = require_string(j, "model", origin);
  t.image = require_string(j, "image", origin);
  t.port = static_cast<int>(require_number(j, "port", origin));
  t.health_path = require_string(j, "health_path", origin);
  t.source = require_string(j, "source", origin);
  for (const auto& [flag, spec] : require_field(j, "flags", origin).items()) {
    FlagSpec f;
    f.type = require_string(spec, "type", origin + " " + flag);
    if (spec.contains("values")) f.values = spec["values"].get<std::vector<std::string>>();
    f.negatable = spec.value("negatable", false);
    t.flags[flag] = f;
  }
  if (j.contains("kv_connectors")) {
    t.kv_connectors = j["kv_connectors"].get<std::vector<std::string>>();
    t.kv_connectors_source = require_string(j, "kv_connectors_source", origin);
  }
  if (j.contains("benchmark")) {
    const Json& b = j["benchmark"];
    t.benchmark_launch = require_string(b, "launch", origin + " benchmark");
    t.benchmark_flags = b["flags"].get<std::vector<std::string>>();
    t.benchmark_source = require_string(b, "source", origin + " benchmark");
  }
  return t;
}

// The Hugging Face repository a user pulls, where the zoo records one; else the zoo id.
std::string model_argument(const ModelSpec& m) {
  return m.hf_repos.empty() ? m.id : m.hf_repos.front();
}

// Adds a flag after checking it against the table (a flag outside it is a bug here, not input).
void add(std::vector<TracedArg>& args, const FlagTable& t, const std::string& flag,
         const std::string& value, const std::string& from) {
  if (!t.accepts(flag))
    throw std::logic_error(fmt::format("{} is not a flag of {}", flag, t.display));
  const auto it = t.flags.find(flag);
  if (it != t.flags.end() && it->second.type == "choice" &&
      std::find(it->second.values.begin(), it->second.values.end(), value) ==
          it->second.values.end())
    throw std::logic_error(fmt::format("{} {} is not a value of {}", flag, value, t.display));
  args.push_back({flag, value, from});
}

bool is_vllm(const FlagTable& t) {
  return t.engine == "vllm";
}
bool is_trtllm(const FlagTable& t) {
  return t.engine == "trtllm";
}

// Weight precision -> the engine's dtype / quantization flags.
void add_weights(std::vector<TracedArg>& args, const FlagTable& t, Precision w,
                 std::vector<std::string>& notes) {
  const std::string from = fmt::format("plan.shape.weights = {}", to_string(w));
  if (is_trtllm(t)) {
    // trtllm-serve has no dtype or quantisation option: the PyTorch backend runs the checkpoint's
    // own dtype and reads a quantised checkpoint's method from its config (ModelOpt FP8/NVFP4,
    // AWQ ...).
    const std::string note = fmt::format(
        "weights {}: trtllm-serve takes the checkpoint's dtype and quantisation, so serve a "
        "checkpoint {} (no flag is emitted)",
        to_string(w),
        w == Precision::bf16 || w == Precision::fp16
            ? fmt::format("stored in {}", to_string(w))
            : fmt::format("already quantised to {} (for FP8, a ModelOpt FP8 checkpoint)",
                          to_string(w)));
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    return;
  }
  switch (w) {
    case Precision::bf16:
      add(args, t, "--dtype", "bfloat16", from);
      break;
    case Precision::fp16:
      add(args, t, "--dtype", "float16", from);
      break;
    case Precision::fp8_e4m3:
      // Both engines quantise a 16-bit checkpoint to FP8 at load time with "fp8" (vLLM
      // Fp8Config; SGLang QUANTIZATION_CHOICES: "MOE + linear online quantization").
      add(args, t, "--quantization", "fp8", from + " (FP8 weights, quantised at load)");
      break;
    default: {
      const std::string note = fmt::format(
          "weights {}: serve a checkpoint already quantised to it (AWQ/GPTQ for int4); the engine "
          "reads the method from the checkpoint's quantization_config, so no flag is emitted",
          to_string(w));
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
  }
}

void add_kv(std::vector<TracedArg>& args, const FlagTable& t, Precision kv) {
  const std::string from = fmt::format("plan.shape.kv = {}", to_string(kv));
  if (is_trtllm(t)) {
    // The KV cache takes the model's dtype unless kv_cache_config.dtype says otherwise, which only
    // the --config YAML sets (serve.py get_llm_args builds KvCacheConfig from the memory fraction
    // alone).
    if (kv == Precision::bf16 || kv == Precision::fp16) return;
    throw InputError("--emit", "trtllm",
                     fmt::format("a plan whose KV cache is in the model's dtype: a {} KV cache is "
                                 "set by kv_cache_config.dtype in trtllm-serve's --config YAML, "
                                 "which memwall does not write (rerun the plan with "
                                 "--kv-precisions bf16)",
                                 to_string(kv)));
  }
  if (kv == Precision::bf16 || kv == Precision::fp16)
    add(args, t, "--kv-cache-dtype", is_vllm(t) ? "auto" : "bf16", from + " (the model's dtype)");
  else if (kv == Precision::fp8_e4m3)
    add(args, t, "--kv-cache-dtype", is_vllm(t) ? "fp8" : "fp8_e4m3", from);
  else
    throw InputError("--emit", t.engine,
                     fmt::format("a plan whose KV cache is bf16 or fp8, not {}", to_string(kv)));
}

// trtllm-serve (NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py): the PyTorch backend, the
// parallel sizes, the batch and token limits and the KV memory fraction as flags.
EngineCommand trtllm_command(EngineCommand c, const plan::ReplicaShape& shape, int batch_cap,
                             const std::string& role, const FlagTable& t,
                             const perf::EngineProfile& profile, std::vector<std::string>& notes) {
  if (!role.empty())
    throw InputError("--emit", "trtllm",
                     "an aggregated plan: trtllm-serve serves prefill and decode pools from a "
                     "disaggregated config file (`trtllm-serve disaggregated -c`), which memwall "
                     "does not write (rerun the plan with --serving aggregated)");
  auto& a = c.args;
  add(a, t, "--host", "0.0.0.0",
      "serving: listen on every interface (a container's port; trtllm-serve's default is "
      "localhost)");
  add(a, t, "--port", std::to_string(t.port), "serving: trtllm-serve's default port");
  add(a, t, "--backend", "pytorch",
      fmt::format("engine profile {}: the PyTorch runtime (trtllm-serve's default backend)",
                  profile.display));
  add(a, t, "--tp_size", std::to_string(shape.tp),
      fmt::format("plan.shape.tp = {} (tensor-parallel degree)", shape.tp));
  if (shape.pp > 1)
    add(a, t, "--pp_size", std::to_string(shape.pp),
        fmt::format("plan.shape.pp = {} (pipeline stages)", shape.pp));
  if (shape.ep > 1)
    add(a, t, "--ep_size", std::to_string(shape.ep),
        fmt::format("plan.shape.ep = {} = TP (experts split over the TP group)", shape.ep));
  add(a, t, "--max_batch_size", std::to_string(batch_cap),
      fmt::format("plan.batch_cap = {} (most sequences per replica that meet the SLA)",
                  batch_cap));
  const auto& lim = profile.limits;
  const std::string limits_from =
      fmt::format("engine profile {} limits (data/engines), which the plan's step times assume",
                  profile.display);
  add(a, t, "--max_num_tokens", std::to_string(lim.max_num_batched_tokens),
      "tokens per iteration: " + limits_from);
  const double fraction = lim.default_memory_fraction(shape.tp);
  add(a, t, "--kv_cache_free_gpu_memory_fraction", fmt::format("{:g}", fraction),
      fmt::format("KV cache share {:g} of the memory free after weights ({}), which the plan's "
                  "KV capacity assumes",
                  fraction, profile.display));
  if (lim.chunked_prefill)
    add(a, t, "--enable_chunked_prefill", "", "chunked prefill: " + limits_from);
  add_kv(a, t, shape.kv);
  add_weights(a, t, shape.weights, notes);
  return c;
}

EngineCommand command_for(const plan::ReplicaShape& shape, int replicas, int batch_cap,
                          const std::string& role, const ModelSpec& model, const FlagTable& t,
                          const perf::EngineProfile& profile, std::vector<std::string>& notes) {
  EngineCommand c;
  c.role = role;
  c.replicas = replicas;
  c.shape = shape;
  c.model = model_argument(model);
  c.model_id = model.id;
  auto& a = c.args;
  if (is_trtllm(t))
    return trtllm_command(std::move(c), shape, batch_cap, role, t, profile, notes);
  const bool vllm = is_vllm(t);
  if (!vllm) {
    add(a, t, "--host", "0.0.0.0", "serving: listen on every interface (a container's port)");
    add(a, t, "--port", std::to_string(t.port), "serving: SGLang's default port");
  }
  add(a, t, vllm ? "--tensor-parallel-size" : "--tp-size", std::to_string(shape.tp),
      fmt::format("plan.shape.tp = {} (tensor-parallel degree)", shape.tp));
  if (shape.pp > 1)
    add(a, t, vllm ? "--pipeline-parallel-size" : "--pp-size", std::to_string(shape.pp),
        fmt::format("plan.shape.pp = {} (pipeline stages)", shape.pp));
  if (shape.ep > 1) {
    // memwall's expert parallelism spans the tensor-parallel group (EP = TP, SearchSpace); vLLM's
    // EP size is TP x DP, so with one data-parallel rank it is the same group.
    if (vllm)
      add(a, t, "--enable-expert-parallel", "",
          fmt::format("plan.shape.ep = {} = TP (experts split over the TP group)", shape.ep));
    else
      add(a, t, "--ep-size", std::to_string(shape.ep), fmt::format("plan.shape.ep = {}", shape.ep));
  }
  // The prefill pool's model serves one prompt at a time per replica (docs/plan.md "Disaggregated
  // pools"); the decode or aggregated replica holds up to the plan's B*.
  if (role == "prefill")
    add(a, t, vllm ? "--max-num-seqs" : "--max-running-requests", "1",
        "plan.prefill: one prompt at a time per prefill replica, as the plan's M/M/1 prefill "
        "queue");
  else
    add(a, t, vllm ? "--max-num-seqs" : "--max-running-requests", std::to_string(batch_cap),
        fmt::format("plan.batch_cap = {} (most sequences per replica that meet the SLA)",
                    batch_cap));
  const auto& lim = profile.limits;
  const bool small = lim.small_device_bytes > 0 && shape.accelerator &&
                     infer::device_capacity(*shape.accelerator).value() < lim.small_device_bytes;
  const int64_t tokens = small && lim.small_max_num_batched_tokens > 0
                             ? lim.small_max_num_batched_tokens
                             : lim.max_num_batched_tokens;
  const std::string limits_from =
      fmt::format("engine profile {} limits (data/engines), which the plan's step times assume",
                  profile.display);
  const double fraction = lim.default_memory_fraction(shape.tp);
  add(a, t, vllm ? "--gpu-memory-utilization" : "--mem-fraction-static",
      fmt::format("{:g}", fraction),
      fmt::format("memory fraction {:g} of {} at TP{}, which the plan's KV capacity assumes",
                  fraction, profile.display, shape.tp));
  add_kv(a, t, shape.kv);
  add_weights(a, t, shape.weights, notes);
  if (vllm) {
    add(a, t, "--max-num-batched-tokens", std::to_string(tokens),
        "tokens per iteration: " + limits_from);
    add(a, t, lim.chunked_prefill ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill", "",
        "chunked prefill: " + limits_from);
  } else {
    add(a, t, "--chunked-prefill-size", lim.chunked_prefill ? std::to_string(tokens) : "-1",
        "tokens per prefill chunk (-1: off): " + limits_from);
  }
  if (!role.empty()) {
    const std::string from =
        fmt::format("plan.prefill set: disaggregated, this is the {} pool", role);
    if (vllm) {
      // NixlConnector: registered in vLLM's KVConnectorFactory at that version (see the table).
      const std::string connector = "NixlConnector";
      if (std::find(t.kv_connectors.begin(), t.kv_connectors.end(), connector) ==
          t.kv_connectors.end())
        throw InputError("--engine-version", t.version,
                         "a vLLM version whose KV connectors include NixlConnector");
      add(a, t, "--kv-transfer-config",
          fmt::format(R"({{"kv_connector":"{}","kv_role":"{}"}})", connector,
                      role == "prefill" ? "kv_producer" : "kv_consumer"),
          from + " (KV sent over " + connector + ")");
    } else {
      add(a, t, "--disaggregation-mode", role, from);
      add(a, t, "--disaggregation-transfer-backend", "mooncake",
          from + " (SGLang's default backend)");
    }
  }
  return c;
}

std::string role_suffix(const EngineCommand& c) {
  return c.role.empty() ? "" : "-" + c.role;
}

std::string object_name(const Emission& e, const EngineCommand& c) {
  return fmt::format("memwall-plan-{}-{}{}", e.pick, e.table->engine, role_suffix(c));
}

// The device plugin resource of each vendor: NVIDIA k8s-device-plugin (nvidia.com/gpu), AMD ROCm
// k8s-device-plugin (amd.com/gpu), Huawei Ascend device plugin (huawei.com/Ascend910), Intel
// Gaudi device plugin (habana.ai/gaudi).
std::string gpu_resource(const Accelerator& a) {
  const std::string v = detail::lower(a.vendor);
  if (v == "nvidia") return "nvidia.com/gpu";
  if (v == "amd") return "amd.com/gpu";
  if (v == "huawei") return "huawei.com/Ascend910";
  if (v.rfind("intel (habana)", 0) == 0) return "habana.ai/gaudi";
  throw InputError("--emit", "k8s",
                   fmt::format("an accelerator with a known Kubernetes device plugin (NVIDIA, AMD, "
                               "Huawei, Intel Gaudi), not {} {}",
                               a.vendor, a.id));
}

// The label LeaderWorkerSet puts on each pod of a group with its index in the group, the leader
// being "0" (lws v0.5.1 api/leaderworkerset/v1/leaderworkerset_types.go, WorkerIndexLabelKey).
constexpr const char* kLwsWorkerIndexLabel = "leaderworkerset.sigs.k8s.io/worker-index";

// vLLM across nodes runs on a Ray cluster: vLLM's LWS deployment guide (vllm-project/vllm
// docs/deployment/frameworks/lws.md at commit 051f9b87abc84889ebd1d463ec060e21955c4e23) starts the
// leader pod with `multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE)` (ray start
// --head, then waits until that many nodes are alive) before the server, and each worker pod with
// `multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)` (ray start --address
// ...:6379 --block; examples/online_serving/multi-node-serving.sh at commit
// 2584e94bc2b500b84af054a71559f04e60c4aec2), the script at that path in the vllm-openai image.
// LeaderWorkerSet v0.5.1 sets LWS_LEADER_ADDRESS and LWS_GROUP_SIZE in every container
// (pkg/utils/pod/pod_utils.go at tag v0.5.1, commit 3ee2d9a808299920d056e3664ec4ec3f998110cb).
constexpr const char* kVllmRayScript = "/vllm-workspace/examples/online_serving/multi-node-serving.sh";

Json container(const Emission& e, const EngineCommand& c, int nodes, int devices_per_pod,
               bool leader) {
  const FlagTable& t = *e.table;
  EngineCommand cmd = c;
  Json env = Json::array();
  if (nodes > 1 && !is_vllm(t)) {
    // SGLang spans nodes by flags: every pod of the group runs the server with its rank and the
    // leader's address. LeaderWorkerSet v0.5.1 (the version the manifest targets) sets
    // LWS_LEADER_ADDRESS in every container (pkg/utils/pod/pod_utils.go) but no variable with the
    // pod's index (LWS_WORKER_INDEX came in v0.6.0), so the rank is read from the pod's
    // worker-index label through the downward API. Port 20000 for the rendezvous is a choice.
    const std::string from =
        fmt::format("a replica of {} devices spans {} nodes", c.shape.devices(), nodes);
    env.push_back(
        {{"name", "MEMWALL_NODE_RANK"},
         {"valueFrom",
          {{"fieldRef",
            {{"fieldPath", fmt::format("metadata.labels['{}']", kLwsWorkerIndexLabel)}}}}}});
    add(cmd.args, t, "--nnodes", std::to_string(nodes), from);
    add(cmd.args, t, "--node-rank", "$(MEMWALL_NODE_RANK)",
        from + " (this pod's index in its group, from its " + kLwsWorkerIndexLabel + " label)");
    add(cmd.args, t, "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000",
        from + " (the group's leader)");
  }
  const bool ray = nodes > 1 && is_vllm(t);
  if (ray && leader)
    add(cmd.args, t, "--distributed-executor-backend", "ray",
        fmt::format("a replica of {} devices spans {} nodes: its workers join the leader's Ray "
                    "cluster",
                    c.shape.devices(), nodes));
  std::vector<std::string> words = cmd.words(t);
  const std::string resource = gpu_resource(*c.shape.accelerator);
  const Json limits = {{"limits", {{resource, devices_per_pod}}},
                       {"requests", {{resource, devices_per_pod}}}};
  if (ray && !leader) {
    // A Ray worker serves no API: no port, no probes on the engine's health endpoint.
    return {{"name", "engine"},
            {"image", t.image},
            {"command", Json::array({"sh", "-c"})},
            {"args", Json::array({fmt::format("bash {} worker --ray_address=$(LWS_LEADER_ADDRESS)",
                                              kVllmRayScript)})},
            {"resources", limits}};
  }
  Json probe = {{"httpGet", {{"path", t.health_path}, {"port", t.port}}}, {"periodSeconds", 10}};
  Json startup = probe;
  // A choice, not a measurement: 60 x 10 s = 10 minutes for the weights to load before the
  // liveness probe counts.
  startup["failureThreshold"] = 60;
  Json ct = {
      {"name", "engine"},
      {"image", t.image},
      {"command", Json::array({words[0]})},
      {"args", Json(std::vector<std::string>(words.begin() + 1, words.end()))},
      {"ports", Json::array({{{"containerPort", t.port}, {"name", "http"}}})},
      {"resources", limits},
      {"readinessProbe", probe},
      {"livenessProbe", probe},
      {"startupProbe", startup}};
  if (!env.empty()) ct["env"] = env;
  if (ray) {
    // The leader: the Ray head, once every node of the group has joined, then the server.
    std::string line;
    for (const auto& word : words) line += (line.empty() ? "" : " ") + quote_shell(word);
    ct["command"] = Json::array({"sh", "-c"});
    ct["args"] = Json::array({fmt::format(
        "bash {} leader --ray_cluster_size=$(LWS_GROUP_SIZE) && {}", kVllmRayScript, line)});
  }
  return ct;
}

Json pod_spec(const Emission& e, const EngineCommand& c, int nodes, int devices_per_pod,
              bool leader) {
  return {{"nodeSelector", {{"memwall.io/accelerator", c.shape.accelerator->id}}},
          {"containers", Json::array({container(e, c, nodes, devices_per_pod, leader)})}};
}

// `app` and the deployment's labels (kDeploymentLabels); a value that is not a valid label value
// (a model imported from a config.json path) is left out with a note in the manifest.
Json deployment_labels(const std::string& name, const EngineCommand& c, std::string& notes) {
  Json labels = {{"app", name}};
  const std::vector<std::string> values = deployment_label_values(c.model_id, c.shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (valid_label_value(values[i])) {
      labels[kDeploymentLabels[i]] = values[i];
    } else {
      const std::string note =
          fmt::format("# note: {}: label {} left out: '{}' is not a Kubernetes label value\n", name,
                      kDeploymentLabels[i], values[i]);
      if (notes.find(note) == std::string::npos) notes += note;
    }
  }
  return labels;
}

}  // namespace

bool FlagTable::accepts(const std::string& flag) const {
  const std::string name = flag.substr(0, flag.find('='));
  if (flags.count(name)) return true;
  if (name.rfind("--no-", 0) == 0) {
    const auto it = flags.find("--" + name.substr(5));
    return it != flags.end() && it->second.negatable;
  }
  return false;
}

const std::vector<FlagTable>& flag_tables() {
  static const std::vector<FlagTable> tables = [] {
    std::vector<FlagTable> out;
    for (const auto& f : data::embedded_files()) {
      const std::string path(f.path);
      if (path.rfind("deploy/", 0) != 0) continue;
      const std::string origin = "built-in data/" + path;
      const Json doc = parse_document(f.content, origin);
      // The other files there record a Helm chart's values (helm_values, llm_d.cc) or a config
      // file's fields (config_file, mindie.cc).
      if (doc.contains("helm_values") || doc.contains("config_file")) continue;
      out.push_back(table_from_json(require_field(doc, "engine_flags", origin), origin));
    }
    return out;
  }();
  return tables;
}

const FlagTable& flag_table(const std::string& engine, const std::string& version,
                            const std::string& field) {
  std::vector<std::string> known;
  for (const auto& t : flag_tables()) {
    if (t.engine == engine && t.version == version) return t;
    known.push_back(t.engine + " " + t.version);
  }
  throw InputError(field, engine + " " + version,
                   fmt::format("an engine version with a flag table: {}", fmt::join(known, ", ")));
}

Target parse_target(const std::string& s) {
  if (s == "vllm") return Target::vllm;
  if (s == "sglang") return Target::sglang;
  if (s == "trtllm") return Target::trtllm;
  if (s == "k8s") return Target::k8s;
  if (s == "llm-d") return Target::llm_d;
  if (s == "mindie") return Target::mindie;
  throw InputError("--emit", s, "vllm, sglang, trtllm, k8s, llm-d or mindie");
}

std::string plan_engine(const plan::Plan& p) {
  return p.shape.engine.empty() ? "default" : p.shape.engine;
}

std::vector<std::string> EngineCommand::words(const FlagTable& table) const {
  std::vector<std::string> w;
  size_t start = 0;
  while (start < table.launch.size()) {
    const size_t end = std::min(table.launch.find(' ', start), table.launch.size());
    w.push_back(table.launch.substr(start, end - start));
    start = end + 1;
  }
  if (table.model_flag != "positional") w.push_back(table.model_flag);
  w.push_back(model);
  for (const auto& a : args) {
    w.push_back(a.flag);
    if (!a.value.empty()) w.push_back(a.value);
  }
  return w;
}

Emission engine_commands(const plan::Plan& p, const ModelSpec& model, int pick,
                         const std::string& engine, const std::optional<std::string>& version) {
  const perf::EngineProfile& profile = profile_of(p);
  if (profile.name != engine)
    throw InputError("--emit", engine,
                     fmt::format("the engine plan {} was estimated with ({}); rerun the plan with "
                                 "--engine {} to plan for it",
                                 pick, profile.display, engine));
  Emission e;
  e.pick = pick;
  e.plan_profile = profile.display;
  e.plan_description = p.describe();
  const bool tabled = std::any_of(flag_tables().begin(), flag_tables().end(),
                                  [&](const FlagTable& t) { return t.engine == engine; });
  e.table = &flag_table(engine, version.value_or(profile.version),
                        tabled ? "--engine-version" : "--emit");
  if (p.prefill) {
    e.commands.push_back(command_for(p.prefill->shape, p.prefill->replicas, p.batch_cap, "prefill",
                                     model, *e.table, profile, e.notes));
    e.commands.push_back(
        command_for(p.shape, p.replicas, p.batch_cap, "decode", model, *e.table, profile, e.notes));
    e.notes.push_back(
        "a router that sends each request to a prefill server, then to a decode server, is not "
        "generated (vLLM: its disaggregated-prefill proxy or llm-d; SGLang: sglang-router in PD "
        "mode)");
    if (engine == "vllm" && p.prefill->shape.accelerator->arch != p.shape.accelerator->arch)
      e.notes.push_back(fmt::format(
          "the pools run different GPU generations ({} prefill, {} decode): vLLM's NIXL handshake "
          "refuses a peer whose vLLM version, attention backend or KV dtype differ "
          "(compute_nixl_compatibility_hash, vllm-project/vllm 002a1057), and the default backend "
          "is chosen per GPU (vllm/platforms/cuda.py _get_backend_priorities: FlashInfer first "
          "on compute capability 10.x, FlashAttention first on others), so install one vLLM "
          "build and set one attention backend on both pools",
          p.prefill->shape.accelerator->id, p.shape.accelerator->id));
  } else {
    e.commands.push_back(
        command_for(p.shape, p.replicas, p.batch_cap, "", model, *e.table, profile, e.notes));
  }
  if (!perf::engine_platform(*p.shape.accelerator).empty())
    e.notes.push_back(fmt::format(
        "{} runs the engine's {} build: its container image is not {} (the "
        "CUDA image); its tag is not recorded here",
        p.shape.accelerator->id, perf::engine_platform(*p.shape.accelerator), e.table->image));
  e.notes.push_back(
      "replicas run as independent servers behind a load balancer (Kubernetes replicas), not as "
      "one engine's data-parallel ranks, so no data-parallel flag is emitted");
  if (profile.version != e.table->version)
    e.notes.push_back(
        fmt::format("the plan's figures are {}'s; the flags are {}'s (--engine-version)",
                    profile.display, e.table->display));
  return e;
}

std::string shell_script(const Emission& e) {
  const FlagTable& t = *e.table;
  std::string s = fmt::format("#!/bin/sh\n# memwall plan {}: {}\n# engine: {} (flags: {})\n",
                              e.pick, e.plan_description, t.display, t.source);
  for (const auto& c : e.commands) {
    s += fmt::format("\n# {}{} x {} replica(s), each {}\n", c.role.empty() ? "server" : c.role,
                     c.role.empty() ? "" : " pool", c.replicas, c.shape.describe());
    for (const auto& a : c.args) s += fmt::format("#   {}: {}\n", a.flag, a.from);
    const std::vector<std::string> w = c.words(t);
    std::string line;
    for (const auto& word : w) line += (line.empty() ? "" : " ") + quote_shell(word);
    s += line + "\n";
  }
  for (const auto& n : e.notes) s += "# note: " + n + "\n";
  return s;
}

std::string explain_text(const Emission& e) {
  std::string s = fmt::format("memwall plan {} -> {}\n", e.pick, e.table->display);
  for (const auto& c : e.commands) s += detail::explain_lines(c.args, c.role);
  return s;
}

std::string k8s_manifest(const Emission& e) {
  std::string out = fmt::format(
      "# memwall plan {}: {}\n# engine: {}; every container arg is traced in `--emit {} "
      "--explain`\n"
      "# schema: Kubernetes v1.31 (apps/v1 Deployment, v1 Service); LeaderWorkerSet "
      "leaderworkerset.x-k8s.io/v1 of LWS v0.5.1\n"
      "# nodeSelector memwall.io/accelerator: label the nodes that carry that accelerator\n",
      e.pick, e.plan_description, e.table->display, e.table->engine);
  std::string notes;
  for (const auto& c : e.commands) {
    const std::string name = object_name(e, c);
    const int per_node = c.shape.node ? c.shape.node->devices : 1;
    const int devices = c.shape.devices();
    const int nodes = (devices + per_node - 1) / per_node;
    const Json labels = deployment_labels(name, c, notes);
    Json obj;
    if (nodes <= 1) {
      obj = {{"apiVersion", "apps/v1"},
             {"kind", "Deployment"},
             {"metadata", {{"name", name}, {"labels", labels}}},
             {"spec",
              {{"replicas", c.replicas},
               {"selector", {{"matchLabels", labels}}},
               {"template",
                {{"metadata", {{"labels", labels}}},
                 {"spec", pod_spec(e, c, 1, devices, true)}}}}}};
    } else {
      const Json leader = {{"metadata", {{"labels", labels}}},
                           {"spec", pod_spec(e, c, nodes, per_node, true)}};
      const Json worker = {{"metadata", {{"labels", labels}}},
                           {"spec", pod_spec(e, c, nodes, per_node, false)}};
      obj = {{"apiVersion", "leaderworkerset.x-k8s.io/v1"},
             {"kind", "LeaderWorkerSet"},
             {"metadata", {{"name", name}, {"labels", labels}}},
             {"spec",
              {{"replicas", c.replicas},
               {"leaderWorkerTemplate",
                {{"size", nodes}, {"leaderTemplate", leader}, {"workerTemplate", worker}}}}}};
      const FlagTable& t = *e.table;
      out += fmt::format(
          "# {}: one replica spans {} nodes of {} devices; {}\n", name, nodes, per_node,
          is_vllm(t) ? "the workers join the leader's Ray cluster (vLLM's multi-node-serving.sh; "
                       "the leader serves with --distributed-executor-backend ray)"
          : is_trtllm(t)
              ? "the workers must join the leader's MPI launch, not generated"
              : "every pod runs the server with --nnodes, --node-rank and --dist-init-addr");
    }
    out += "---\n";
    write_yaml(obj, 0, out);
    // The Service the benchmark's --base-url names (core/v1), in front of the pool's pods; of a
    // LeaderWorkerSet's, the leaders only: the leader serves the API, the other ranks do not
    // (SGLang's answer only a health check, python/sglang/srt/entrypoints/engine.py
    // launch_dummy_health_check_server).
    Json selector = labels;
    if (nodes > 1) selector[kLwsWorkerIndexLabel] = "0";
    const Json service = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"selector", selector},
          {"ports", Json::array({{{"port", e.table->port}, {"targetPort", "http"}}})}}}};
    out += "---\n";
    write_yaml(service, 0, out);
  }
  for (const auto& n : e.notes) notes += "# note: " + n + "\n";
  return notes + out;
}

std::string benchmark_command(const Emission& e, const plan::InferenceWorkload& w,
                              const std::string& base_url, const std::string& base_url_from) {
  const FlagTable& t = *e.table;
  // The benchmark flags of the emitted vLLM version, else of the newest table that has them.
  const FlagTable* bench = t.benchmark_launch.empty() ? nullptr : &t;
  for (const auto& other : flag_tables())
    if (!bench && !other.benchmark_launch.empty()) bench = &other;
  if (!bench) throw std::logic_error("no benchmark flags in data/deploy");
  const std::string result = fmt::format("memwall-plan-{}-vllm-serve.json", e.pick);
  std::vector<TracedArg> args;
  auto arg = [&](const std::string& flag, const std::string& value, const std::string& from) {
    if (std::find(bench->benchmark_flags.begin(), bench->benchmark_flags.end(), flag) ==
        bench->benchmark_flags.end())
      throw std::logic_error(flag + " is not a flag of " + bench->benchmark_launch);
    args.push_back({flag, value, from});
  };
  const std::string host = e.commands.size() > 1 ? "ROUTER" : object_name(e, e.commands.front());
  if (!base_url.empty())
    arg("--base-url", base_url, base_url_from);
  else
    arg("--base-url", fmt::format("http://{}:{}", host, t.port),
        e.commands.size() > 1 ? "the router in front of the prefill and decode pools"
                              : "the Service in front of the plan's replicas");
  arg("--model", e.commands.front().model, "the plan's model");
  arg("--dataset-name", "random", "synthetic prompts of the plan's lengths");
  const long in = std::lround(w.input.mean), out_len = std::lround(w.output.mean);
  arg("--random-input-len", std::to_string(in),
      fmt::format("plan workload: mean prompt {:.0f} tokens", w.input.mean));
  arg("--random-output-len", std::to_string(out_len),
      fmt::format("plan workload: mean output {:.0f} tokens", w.output.mean));
  long prompts = 0;
  if (w.load.concurrency) {
    const long users = std::lround(std::ceil(*w.load.concurrency));
    arg("--max-concurrency", std::to_string(users),
        fmt::format("plan load: {:g} concurrent users", *w.load.concurrency));
    // A choice: 10 requests per user, so ramp-up and drain are a small share of the run.
    prompts = std::max(100L, 10 * users);
  } else {
    arg("--request-rate", fmt::format("{:g}", *w.load.rate_per_s),
        fmt::format("plan load: {:g} requests/s", *w.load.rate_per_s));
    // A choice: five minutes of arrivals at the plan's rate.
    prompts = std::max(100L, std::lround(*w.load.rate_per_s * 300));
  }
  arg("--num-prompts", std::to_string(prompts),
      "requests measured (10 per user, or 300 s of arrivals)");
  arg("--save-result", "", "write the result file");
  arg("--result-filename", result,
      "read back by `memwall import --format vllm-serve` (docs/measurements.md)");
  std::string s = fmt::format("# benchmark of memwall plan {} ({}); flags: {}\n", e.pick,
                              e.plan_description, bench->benchmark_source);
  for (const auto& a : args) s += fmt::format("#   {}: {}\n", a.flag, a.from);
  s += bench->benchmark_launch;
  for (const auto& a : args)
    s += " " + a.flag + (a.value.empty() ? "" : " " + quote_shell(a.value));
  s += "\n";
  // Reading the result back: what the file does not record (the accelerator, the parallel sizes
  // and replicas, the engine and its settings, the lengths, of which it keeps only totals) is
  // the plan's, given as memwall import's flags; then memwall calibrate fits the records.
  if (e.commands.size() != 1) {
    s += fmt::format("# then: memwall import {} --format vllm-serve ... reads an aggregated run; "
                     "a measurement record cannot describe separate prefill and decode pools, so "
                     "this run is for comparing with the plan, not for memwall calibrate\n",
                     result);
    return s;
  }
  const EngineCommand& c = e.commands.front();
  if (!c.shape.accelerator) throw std::logic_error("an emitted plan without its accelerator");
  const std::string records = fmt::format("memwall-plan-{}-records.json", e.pick);
  std::string import = fmt::format(
      "memwall import {} --format vllm-serve --gpu {} --tp {} --pp {} --dp {}", result,
      c.shape.accelerator->id, c.shape.tp, c.shape.pp,
      c.replicas);
  if (c.shape.ep > 1) import += fmt::format(" --ep {}", c.shape.ep);
  import += fmt::format(" --engine {} --engine-version {} --weight-precision {} --kv-precision {}",
                        t.engine, t.version, to_string(c.shape.weights), to_string(c.shape.kv));
  for (const auto& [flag, option] : std::vector<std::pair<std::string, std::string>>{
           {"--max-num-seqs", "--max-num-seqs"},
           {"--max-num-batched-tokens", "--max-num-batched-tokens"},
           {"--gpu-memory-utilization", "--memory-utilization"}})
    for (const auto& a : c.args)
      if (a.flag == flag && !a.value.empty()) import += " " + option + " " + a.value;
  import += fmt::format(" --input {} --output {} > {}", in, out_len, records);
  s += "# then: " + import + "\n";
  s += fmt::format("#       memwall calibrate {} --out memwall-plan-{}-profile.json\n", records,
                   e.pick);
  return s;
}

void EmitRequest::validate() const {
  if (emit) parse_target(*emit);
  if (pick < 1) throw InputError("--pick", std::to_string(pick), "a plan number from 1");
  if (!emit && !benchmark && engine_version)
    throw InputError("--engine-version", *engine_version, "only with --emit or --benchmark");
  if (explain && !emit)
    throw InputError("--explain", "(set)", "only with --emit vllm|sglang|trtllm|k8s|llm-d|mindie");
}

std::vector<EmittedFile> emit_plan(const plan::InferenceAnswer& answer,
                                   const EmitRequest& request) {
  request.validate();
  const auto& plans = answer.result.plans;
  if (request.pick > static_cast<int>(plans.size()))
    throw InputError("--pick", std::to_string(request.pick),
                     plans.empty() ? std::string("none: the search found no plan")
                                   : fmt::format("a plan number from 1 to {}", plans.size()));
  const plan::Plan& p = plans[static_cast<size_t>(request.pick - 1)];
  const Target target = request.emit ? parse_target(*request.emit) : Target::k8s;
  const std::string stem = fmt::format("plan-{}", request.pick);
  if (target == Target::llm_d || target == Target::mindie) {
    std::vector<EmittedFile> files;
    if (target == Target::mindie) {
      const ConfigTable& t = mindie_table();
      if (request.engine_version && *request.engine_version != t.version)
        throw InputError("--engine-version", *request.engine_version,
                         fmt::format("with --emit mindie, {} (the config.json fields recorded)",
                                     t.version));
      if (request.benchmark)
        throw InputError("--benchmark", "(set)",
                         "with --emit vllm|sglang|trtllm|k8s|llm-d: `vllm bench serve` against "
                         "MindIE's OpenAI API is not recorded here");
      const KeyedEmission k = mindie_config(p, answer.model, answer.workload, request.pick);
      files.push_back({stem + "-mindie.json", k.document.dump(4) + "\n"});
      files.push_back({stem + "-mindie.sh", mindie_script(k)});
      if (request.explain) files.push_back({stem + "-explain.txt", explain_text(k)});
      return files;
    }
    const KeyedEmission k =
        llm_d_values(p, answer.model, request.pick, request.engine_version);
    files.push_back({stem + "-llm-d.yaml", llm_d_yaml(k)});
    if (request.explain) files.push_back({stem + "-explain.txt", explain_text(k)});
    if (request.benchmark)
      files.push_back({stem + "-benchmark.sh",
                       benchmark_command(*k.engine, answer.workload, "http://GATEWAY",
                                         "the llm-d Gateway in front of the pools (not "
                                         "generated)")});
    return files;
  }
  const std::string engine = target == Target::vllm     ? "vllm"
                             : target == Target::sglang ? "sglang"
                             : target == Target::trtllm ? "trtllm"
                                                        : profile_of(p).name;
  const Emission e = engine_commands(p, answer.model, request.pick, engine, request.engine_version);
  std::vector<EmittedFile> files;
  if (request.emit) {
    if (target == Target::k8s)
      files.push_back({stem + "-k8s.yaml", k8s_manifest(e)});
    else
      files.push_back({fmt::format("{}-{}.sh", stem, engine), shell_script(e)});
    if (request.explain) files.push_back({stem + "-explain.txt", explain_text(e)});
  }
  if (request.benchmark)
    files.push_back({stem + "-benchmark.sh", benchmark_command(e, answer.workload)});
  return files;
}

}  // namespace memwall::deploy
