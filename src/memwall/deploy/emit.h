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

enum class Target { vllm, sglang, trtllm, k8s };
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
std::string benchmark_command(const Emission& e, const plan::InferenceWorkload& w);

// What `plan infer --emit/--benchmark` asks for.
struct EmitRequest {
  std::optional<std::string> emit;  // vllm | sglang | trtllm | k8s
  int pick = 1;                     // plan number, 1-based
  bool benchmark = false;
  bool explain = false;
  std::optional<std::string> engine_version;
  void validate() const;  // InputError naming --emit or --pick (before the search runs)
};
struct EmittedFile {
  std::string name;  // "plan-1-vllm.sh", "plan-1-k8s.yaml", "plan-1-benchmark.sh"
  std::string text;
};
// The files of the request for the answer's plan `pick` (InputError naming --pick when the search
// has fewer plans).
std::vector<EmittedFile> emit_plan(const plan::InferenceAnswer& answer, const EmitRequest& request);

}  // namespace memwall::deploy
