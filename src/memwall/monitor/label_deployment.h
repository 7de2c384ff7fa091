// The deployment a job's Prometheus series name through their labels, for the advisor's
// comparison when no --model/--gpu is given: the pod labels memwall's deploy emitter writes
// (memwall.io/model, memwall.io/accelerator, memwall.io/tp, memwall.io/pp,
// memwall.io/weight-precision, memwall.io/kv-precision; src/memwall/deploy/emit.h) as
// Prometheus's Kubernetes pod discovery writes them on the pod's series once relabelled
// (labelmap __meta_kubernetes_pod_label_(.+): memwall_io_model ...), and the engines' model_name
// label (vLLM, SGLang). Each label is mapped to a catalog id, a whole number or a precision, or
// named as not mapped with the reason; nothing is guessed from an id or a free-text label.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/infer/deployment.h"
#include "memwall/monitor/engine_metrics.h"
#include "memwall/monitor/engine_records.h"
#include "memwall/measure/import.h"
#include "memwall/monitor/fleet.h"

namespace memwall::monitor {

// A Kubernetes label key as Prometheus's pod discovery names it: every character outside
// [a-zA-Z0-9_] as '_' (memwall.io/kv-precision -> memwall_io_kv_precision).
std::string prometheus_label_name(std::string_view kubernetes_label);

// The memwall_io_* labels the mapping reads, in the order they are reported.
const std::vector<std::string>& deployment_label_names();

struct LabelDeployment {
  infer::DeploymentOptions options;   // over `base`: model, gpu, tp, pp, precisions as labelled
  std::vector<std::string> used;      // "tp 2 (memwall_io_tp=2)"
  std::vector<std::string> unmapped;  // "memwall_io_tp='two': not a whole number from 1 to 1024"
};

// The deployment `labels` and the engines' `model_names` give, over `base` (the flags' engine,
// version, node, calibration). memwall_io_model wins over model_name, which maps to a zoo model
// by id or Hugging Face repository.
LabelDeployment deployment_from_labels(const DeploymentLabels& labels,
                                       const std::set<std::string>& model_names,
                                       const infer::DeploymentOptions& base, const Catalog& c);

// The deployment an engine's operating point is estimated on (`memwall monitor --prometheus`):
// each of model, accelerator, tp, pp and the precisions from its flag in `flags` where given,
// else from the memwall_io_* labels of the engine's own series (the pod labels of plan --emit
// k8s), else unset. The model_name label is left to the records (operating_point_records), which
// read it themselves; memwall_io_model wins over it when both are there.
struct EngineDeployment {
  measure::ImportOptions options;
  std::vector<std::string> used;      // "accelerator nvidia-h100-sxm (memwall_io_accelerator=h100)"
  std::vector<std::string> unmapped;  // as deployment_from_labels names them
};
EngineDeployment engine_deployment(const EngineOperatingPoint& p,
                                   const measure::ImportOptions& flags, const Catalog& c);
// memwall's estimate for the engine's operating point on engine_deployment(p, flags, c), its
// notes first naming each label used and each not mapped. nullopt where neither a flag nor a
// label names an accelerator and the series carry no deployment labels (nothing was asked for);
// with labels but no accelerator, `not_estimated` says why.
std::optional<OperatingPointEstimate> estimate_engine_point(const EngineOperatingPoint& p,
                                                            const measure::ImportOptions& flags,
                                                            const std::string& where,
                                                            const Catalog& c,
                                                            const measure::PredictOptions& po);

// The workload the flags give: 0 where not given.
struct FlagWorkload {
  int64_t batch = 0, input = 0, output = 0;
};

// For every GPU job of the fleet whose pod's series (GPU and engine, joined on namespace and pod)
// carry deployment labels or an engine's model_name: the deployment they name and memwall's
// estimate for it. The workload is the flags', else the engine's: batch = its mean running
// requests (rounded, at least 1), input and output = its length histograms' means. A job whose
// labels name no model or accelerator, or whose workload is not known, has notes instead of an
// estimate; so has one the estimator refuses (its message).
std::map<std::string, JobDeployment> job_deployments(
    const Fleet& f, const std::vector<EngineOperatingPoint>& engines,
    const infer::DeploymentOptions& base, const FlagWorkload& w, const Catalog& c);

}  // namespace memwall::monitor
