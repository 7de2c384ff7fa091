#include "memwall/infer/intervals.h"

#include "memwall/model/counts.h"
#include "memwall/uncertainty/model.h"

namespace memwall::infer {

uncertainty::Regime regime(const Deployment& d, const Estimate& e, Phase phase) {
  uncertainty::Regime r;
  r.kind = "inference";
  const bool decode = phase == Phase::decode && !e.decode.bound.empty();
  r.set("bound", phase == Phase::prefill ? e.prefill.bound : decode ? e.decode.bound : e.bound);
  uncertainty::set_hardware(r, d.gpu, *d.efficiency, d.matmul);
  r.set("precision", uncertainty::precision_class(d.weight));
  r.set("engine", d.engine);
  r.set("scale", uncertainty::scale_bucket(d.devices_per_replica()));
  r.devices = d.devices_per_replica();
  r.parameters = count_parameters(d.model).total;
  return r;
}

uncertainty::Interval interval(const Deployment& d, const Estimate& e, Phase phase) {
  const uncertainty::Model& m = uncertainty::builtin_model();
  return uncertainty::calibrated_interval(m.interval(regime(d, e, phase)), d.engine_profile,
                                          d.gpu.id, m.calibrated_scatter("inference"));
}

Json intervals_json(const Deployment& d, const Estimate& e) {
  const auto whole = interval(d, e, Phase::whole);
  const auto prefill = interval(d, e, Phase::prefill);
  const auto decode = interval(d, e, Phase::decode);
  return Json{
      {"ttft_s", prefill.range(e.ttft.value())},
      {"tpot_s", decode.range(e.tpot.value())},
      {"e2e_s", whole.range(e.e2e.value())},
      {"throughput_tokens_per_s", whole.range(e.throughput_tokens_per_s)},
      {"throughput_tokens_per_s_per_device", whole.range(e.throughput_tokens_per_s_per_device)},
      {"requests_per_s", whole.range(e.requests_per_s)},
      {"mfu", whole.fraction_range(e.mfu)},
      {"mbu", decode.fraction_range(e.mbu)}};
}

}  // namespace memwall::infer
