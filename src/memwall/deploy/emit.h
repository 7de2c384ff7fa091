// From a plan to what a team runs (docs/plan.md "From plan to deployment"): the serving engine's
// launch command for each pool of the plan, a Kubernetes manifest around it, and the `vllm bench
// serve` command that measures the deployed plan. Every flag comes from a table of the flags one
// engine version accepts (data/deploy/<engine>-<version>.json, each read from the engine's
// argument parser at a stated commit) and carries the plan field it was taken from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memwall/core/document.h"
#include "memwall/plan/inference_search.h"
#include "memwall/plan/query.h"
#include "memwall/plan/workload.h"

namespace memwall::deploy {

struct FlagSpec {
  std::string type;                 // int | float | bool | string | json | choice
  std::vector<std::string> values;  // choice: the values the parser accepts
  bool negatable = false;           // bool with argparse.BooleanOptionalAction: also --no-FLAG
};

// The flags of one engine version, as its argument parser defines them.
struct FlagTable {
  std::string engine, version, display;
  std::string launch;      // "vllm serve"
  std::string model_flag;  // "positional" or the flag that names the model ("--model-path")
  std::string image;       // container image of that version (no tag: the tag is not known)
  int port = 0;            // the server's default port
  std::string health_path;
  std::string source;
  std::map<std::string, FlagSpec> flags;
  std::vector<std::string> kv_connectors;  // vLLM KV connectors registered at that version
  std::string kv_connectors_source;
  std::string benchmark_launch;  // "vllm bench serve" (empty: none recorded)
  std::vector<std::string> benchmark_flags;
  std::string benchmark_source;
  // Whether `flag` (with or without "=value") is one the parser accepts.
  bool accepts(const std::string& flag) const;
};

// Every table in data/deploy, in file order.
const std::vector<FlagTable>& flag_tables();
// The table of `engine` at `version`; InputError naming `field` and the versions there are.
const FlagTable& flag_table(const std::string& engine, const std::string& version,
                            const std::string& field);

enum class Target { vllm, sglang, trtllm, k8s, llm_d, mindie };
Target parse_target(const std::string& s);  // InputError naming --emit

// One flag of an emitted command and the plan field it comes from.
struct TracedArg {
  std::string flag;
  std::string value;  // empty: a flag without a value
  std::string from;   // "plan.shape.tp = 4 (tensor-parallel degree)"
};

// One engine server of the plan: the aggregated replica, or the prefill / decode pool.
struct EngineCommand {
  std::string role;  // "" (aggregated), "prefill" or "decode"
  int replicas = 0;
  plan::ReplicaShape shape;
  std::string model;     // the model argument (a Hugging Face repository id where known)
  std::string model_id;  // the model's zoo id (the memwall.io/model pod label)
  std::vector<TracedArg> args;
  // The command line as words: the launch words, the model, then each flag and value.
  std::vector<std::string> words(const FlagTable& table) const;
};

struct Emission {
  const FlagTable* table = nullptr;
  int pick = 1;
  std::string plan_profile;  // the engine profile the plan was estimated with ("vllm@0.14")
  std::string plan_description;
  std::vector<EngineCommand> commands;  // one, or prefill then decode
  std::vector<std::string> notes;       // what the commands leave to the user, in words
};

// The launch commands of `p` (plan number `pick` of its search) for `engine` ("vllm" or "sglang")
// at `version` (default: the version of the engine profile the plan was estimated with). An
// engine other than the plan's, or a version without a flag table, is an InputError naming the
// field (--emit, --engine-version) and what there is.
Emission engine_commands(const plan::Plan& p, const ModelSpec& model, int pick,
                         const std::string& engine, const std::optional<std::string>& version);
// The engine of a plan (its serving engine profile id, "vllm" when the plan names none).
std::string plan_engine(const plan::Plan& p);

// A shell script: the targeted version, then each command with one comment line per flag naming
// the plan field it comes from.
std::string shell_script(const Emission& e);
// The table of flag, value and plan field (--explain).
std::string explain_text(const Emission& e);
// Kubernetes objects (YAML, one document per pool): a Deployment per pool whose replica fits one
// node, a LeaderWorkerSet where a replica spans several nodes; accelerator resources, node
// selector, probes on the engine's health endpoint, the engine command as container args, the
// pool's replicas. InputError (--emit) for an accelerator vendor with no known device plugin.
// Every object and pod carries the deployment as labels, which `memwall monitor --prometheus
// --advise` reads back from the pods' series (kDeploymentLabels).
std::string k8s_manifest(const Emission& e);

// The labels of the deployment on each emitted object and pod, besides `app`: the model's zoo id,
// the accelerator's catalog id, the tensor- and pipeline-parallel sizes and the precisions.
// Prometheus's Kubernetes pod discovery writes a pod label with the characters a label name
// cannot hold as underscores (__meta_kubernetes_pod_label_memwall_io_model), so a `labelmap` of
// __meta_kubernetes_pod_label_(.+) puts them on the pod's series as memwall_io_model ...
inline constexpr const char* kDeploymentLabels[] = {
    "memwall.io/model", "memwall.io/accelerator",      "memwall.io/tp",
    "memwall.io/pp",    "memwall.io/weight-precision", "memwall.io/kv-precision"};
// The `vllm bench serve` command that measures the plan at its workload (mean prompt and output
// lengths of the random dataset, the plan's concurrency or request rate), saving a result file
// `memwall import --format vllm-serve` reads back.
// `base_url` (empty: the Service of the plan's pool, or the router in front of two pools) names
// what the benchmark sends its requests to.
std::string benchmark_command(const Emission& e, const plan::InferenceWorkload& w,
                              const std::string& base_url = "",
                              const std::string& base_url_from = "");

// A file of keys rather than a command line (llm-d's Helm values, MindIE's config.json): the
// document, and each key written with the plan field it comes from.
struct KeyedEmission {
  int pick = 1;
  std::string plan_description;
  std::string display;  // "llm-d-modelservice v0.4.12"
  std::string source;   // where the keys were read (repository, file, commit)
  Json document;
  std::vector<TracedArg> keys;       // flag: the key's path ("decode.replicas"), value, from
  std::vector<std::string> notes;    // what the file leaves to the user, in words
  std::vector<TracedArg> env;        // environment of the server (flag: the variable's name)
  std::optional<Emission> engine;    // llm-d: the vLLM commands of the pools (their flags)
};

// A key of a file memwall writes, as the file's owner defines it: its type (string | integer |
// boolean | map | string-list | k8s-list | integer-list-list) and, for some, the values allowed.
struct RecordedKey {
  std::string type;
  std::vector<std::string> values;
};

// The llm-d-modelservice chart's keys memwall writes, as its values schema and templates define
// them (data/deploy/llm-d-modelservice-<version>.json).
struct ValuesTable {
  std::string chart, version, display, repository, source;
  std::string model_command;             // "vllmServe"
  std::vector<std::string> chart_args;   // the vLLM flags the chart writes itself
  struct AcceleratorType {
    std::string type, resource;
  };
  // Catalog vendor (lower case) -> the chart's accelerator type and device-plugin resource.
  std::map<std::string, AcceleratorType> accelerator_types;
  int service_port = 0, proxy_target_port = 0;
  std::string kv_connector, kv_role;
  int side_channel_port = 0;
  std::string kv_source;
  std::map<std::string, RecordedKey> keys;  // "decode.containers[].args" -> type
};
const ValuesTable& llm_d_table();

// llm-d Helm values (llm-d-modelservice) for plan `p`: the decode role (and, disaggregated, the
// prefill role) with its replicas, tensor parallelism, accelerator type and resources, the model,
// and the vLLM flags of the vLLM table at `vllm_version` (default: the plan's profile version) as
// the container's args. InputError naming --emit for a plan not estimated with vLLM, a vendor the
// chart has no accelerator type for, or a replica that spans nodes.
KeyedEmission llm_d_values(const plan::Plan& p, const ModelSpec& model, int pick,
                           const std::optional<std::string>& vllm_version);
std::string llm_d_yaml(const KeyedEmission& e);  // comment lines per key, then the YAML

// MindIE Service's config.json fields memwall writes (data/deploy/mindie-<version>.json).
struct ConfigTable {
  std::string engine, version, display, install_path, launch, source;
  int port = 0;
  std::string memory_fraction_env;
  double memory_fraction_default = 0;
  std::map<std::string, RecordedKey> fields;  // "BackendConfig.ScheduleConfig.maxBatchSize"
};
const ConfigTable& mindie_table();
// MindIE's config.json for plan `p` (engine profile mindie, an Ascend NPU, aggregated, one node,
// PP1, EP1, a KV cache in the weights' dtype or int8 with int8 weights); anything else is an
// InputError naming --emit and why.
KeyedEmission mindie_config(const plan::Plan& p, const ModelSpec& model,
                            const plan::InferenceWorkload& w, int pick);
// The launch script beside it: the traced fields and notes as comments, the memory fraction the
// plan's KV capacity assumes, the daemon.
std::string mindie_script(const KeyedEmission& e);
std::string explain_text(const KeyedEmission& e);

// What `plan infer --emit/--benchmark` asks for.
struct EmitRequest {
  std::optional<std::string> emit;  // vllm | sglang | trtllm | k8s | llm-d | mindie
  int pick = 1;                     // plan number, 1-based
  bool benchmark = false;
  bool explain = false;
  std::optional<std::string> engine_version;
  void validate() const;  // InputError naming --emit or --pick (before the search runs)
};
struct EmittedFile {
  std::string name;  // "plan-1-vllm.sh", "plan-1-k8s.yaml", "plan-1-llm-d.yaml", "plan-1-mindie.json"
  std::string text;
};
// The files of the request for the answer's plan `pick` (InputError naming --pick when the search
// has fewer plans).
std::vector<EmittedFile> emit_plan(const plan::InferenceAnswer& answer, const EmitRequest& request);

}  // namespace memwall::deploy
