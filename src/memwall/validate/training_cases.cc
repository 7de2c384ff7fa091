// Predictions for the "training" cases of the validation set, on the catalog's hardware. Cases
// whose config names an "offload" (DeepSpeed ZeRO-Offload / ZeRO-Infinity runs) are estimated
// with the states moved off the GPU (train/offload.h) on the host their hardware names.
#include <fmt/format.h>

#include <optional>

#include "memwall/offload/host_setup.h"
#include "memwall/train/estimate.h"
#include "memwall/train/framework.h"
#include "memwall/train/intervals.h"
#include "memwall/train/offload.h"
#include "memwall/train/setup.h"
#include "memwall/validate/case.h"
#include "memwall/validate/names.h"
#include "memwall/validate/training_case.h"

namespace memwall::validate {
namespace {

// The metric of an offloaded run: the estimate without the memory check, the offload applied on
// the host of hardware.cpu (sockets, host_memory_gb, nvme_drives from the case).
double offloaded_metric(const Json& c, const TrainingCase& tc, const train::TrainSetup& setup,
                        const Catalog& catalog, std::string& note) {
  const Json& hw = c.at("hardware");
  const Json& cfg = c.at("config");
  train::OffloadSpec spec = train::parse_offload(str_field(cfg, "offload"), "config.offload");
  spec.delayed_update = str_field(cfg, "delayed_update") == "true";
  offload::HostOptions ho;
  ho.cpu = fmt::format("{}x{}", int_field(hw, "sockets").value_or(1), str_field(hw, "cpu"));
  if (auto gb = int_field(hw, "host_memory_gb")) ho.host_memory_gb = double(*gb);
  const offload::HostSetup h = offload::resolve_host(catalog, setup.gpu, ho);
  train::EstimateOptions opt;
  opt.require_fit = false;
  const train::OffloadedEstimate o =
      train::apply_offload(setup, train::estimate_training(setup, tc.config, opt), spec, h,
                           int(int_field(hw, "nvme_drives").value_or(0)));
  note = fmt::format(
      "Offload {} on {} x{}: {:.1f} GiB per GPU, CPU step {:.2f} s, PCIe {:.2f} s "
      "per iteration (bound {}). ",
      train::to_string(spec), h.host.id, h.host.sockets, o.estimate.memory.total().value() / kGiB,
      o.offload.cpu_step_time.value(), o.offload.pcie_time.value(), o.offload.bound);
  return training_metric(tc, setup, o.estimate);
}

}  // namespace

CaseResult predict_training_case(const Json& c, const Catalog& catalog,
                                 std::shared_ptr<const perf::Efficiency> efficiency) {
  CaseResult r = start_result(c);
  try {
    TrainingCase tc = translate_training_case(c);
    if (!tc.zoo_model.empty()) tc.model = catalog.model(tc.zoo_model);
    r.framework = tc.framework;
    r.accelerator = tc.gpu;
    r.precisions = std::string(to_string(tc.config.precision));
    std::optional<Fabric> fabric;
    if (tc.config.gpus > catalog.node(tc.node).devices) fabric = catalog.fabric(tc.fabric);
    const train::TrainSetup setup = train::make_setup(
        tc.model, catalog.accelerator(tc.gpu), catalog.node(tc.node), fabric,
        train::framework_parameters({}, efficiency.get(), tc.framework), efficiency);
    std::string note;
    const bool offloaded = c.contains("config") && !str_field(c.at("config"), "offload").empty();
    r.predicted = offloaded ? offloaded_metric(c, tc, setup, catalog, note)
                            : predict_training_metric(tc, setup);
    train::EstimateOptions opt;
    opt.require_fit = false;  // the run happened; memory is not judged here
    r.regime = train::regime(setup, tc.config, train::estimate_training(setup, tc.config, opt));
    r.assumptions = note + tc.assumptions;
  } catch (const std::exception& ex) {
    r.skipped_reason = ex.what();
  }
  return r;
}

}  // namespace memwall::validate
