#include "memwall/train/intervals.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "memwall/model/counts.h"
#include "memwall/uncertainty/model.h"

namespace memwall::train {

std::string parallelism(const TrainConfig& c) {
  if (c.tp > 1 || c.pp > 1 || c.cp > 1) return "megatron";
  if (c.zero >= 3) return c.zero3_collectives_per_layer > 1 ? "deepspeed-zero3" : "fsdp";
  return "data-parallel";
}

uncertainty::Regime regime(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e) {
  uncertainty::Regime r;
  r.kind = "training";
  const StepBreakdown& b = e.breakdown;
  const std::array<std::pair<const char*, double>, 4> parts = {
      {{"compute", (b.compute + b.recompute + b.optimizer).value()},
       {"communication", (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm).value()},
       {"pipeline", b.bubble.value()},
       {"overhead", b.host_overhead.value()}}};
  r.set("bound", std::max_element(parts.begin(), parts.end(), [](const auto& x, const auto& y) {
                   return x.second < y.second;
                 })->first);
  const perf::Efficiency& eff = setup.efficiency ? *setup.efficiency : perf::default_efficiency();
  uncertainty::set_hardware(r, setup.gpu, eff, c.precision);
  r.set("precision", uncertainty::precision_class(c.precision));
  r.set("engine", parallelism(c));
  r.set("scale", uncertainty::scale_bucket(c.gpus));
  r.devices = c.gpus;
  r.parameters = count_parameters(setup.model).total;
  return r;
}

uncertainty::Interval interval(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e,
                               const perf::FrameworkCalibration* framework) {
  const uncertainty::Model& m = uncertainty::builtin_model();
  const uncertainty::Interval builtin = m.interval(regime(setup, c, e));
  if (!framework || !framework->calibrated_spread) return builtin;
  return uncertainty::calibrated_interval(builtin, "framework " + framework->framework,
                                          &*framework->calibrated_spread, setup.gpu.id,
                                          m.calibrated_scatter("training"));
}

Json intervals_json(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e,
                    const perf::FrameworkCalibration* framework) {
  const auto i = interval(setup, c, e, framework);
  return Json{{"step_time_s", i.range(e.step_time.value())},
              {"tokens_per_s", i.range(e.tokens_per_s)},
              {"tokens_per_s_per_gpu", i.range(e.tokens_per_s_per_gpu)},
              {"model_tflops_per_gpu", i.range(e.model_tflops_per_gpu)},
              {"hardware_tflops_per_gpu", i.range(e.hardware_tflops_per_gpu)},
              {"mfu", i.fraction_range(e.mfu)},
              {"hfu", i.fraction_range(e.hfu)}};
}

}  // namespace memwall::train
