#include "memwall/plan/intervals.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "memwall/core/error.h"
#include "memwall/plan/steady_state.h"
#include "memwall/train/intervals.h"

namespace memwall::plan {

uncertainty::Regime regime(const Plan& p) {
  uncertainty::Regime r;
  r.kind = "inference";
  uncertainty::set_hardware(r, *p.shape.accelerator, perf::default_efficiency(), p.shape.weights);
  r.set("precision", uncertainty::precision_class(p.shape.weights));
  r.set("engine", "default");
  r.set("scale", uncertainty::scale_bucket(p.shape.devices()));
  r.devices = p.shape.devices();
  return r;
}

uncertainty::Interval interval(const Plan& p, double level, const perf::Efficiency* calibration) {
  const uncertainty::Model& m = uncertainty::builtin_model();
  uncertainty::Interval i = m.interval(regime(p));
  if (calibration && !p.shape.engine.empty() && p.shape.accelerator) {
    const perf::EngineProfile& profile =
        calibration->engine(p.shape.engine, perf::engine_platform(*p.shape.accelerator));
    i = uncertainty::calibrated_interval(i, &profile, p.shape.accelerator->id,
                                         m.calibrated_scatter("inference"));
  }
  return uncertainty::scale_to_level(i, level);
}

Json intervals_json(const Plan& p, const perf::Efficiency* calibration) {
  const auto i = interval(p, uncertainty::kDefaultLevel, calibration);
  const auto& t = p.point;
  return Json{{"ttft_p99_s", i.range(t.ttft_p99.value())},
              {"ttft_mean_s", i.range(t.ttft_mean.value())},
              {"tpot_s", i.range(t.tpot.value())},
              {"e2e_mean_s", i.range(t.e2e_mean.value())},
              {"e2e_p99_s", i.range(t.e2e_p99.value())},
              {"throughput_tokens_per_s", i.range(p.generated_tokens_per_s)},
              {"tokens_per_s_per_device", i.range(p.tokens_per_s_per_device)},
              {"tokens_per_s_per_user", i.range(p.tokens_per_s_per_user)}};
}

uncertainty::Regime regime(const TrainPlan& p) {
  uncertainty::Regime r;
  r.kind = "training";
  const train::TrainConfig& c = p.config;
  uncertainty::set_hardware(r, *p.accelerator, perf::default_efficiency(), c.precision);
  r.set("precision", uncertainty::precision_class(c.precision));
  r.set("engine", train::parallelism(c));
  r.set("scale", uncertainty::scale_bucket(c.gpus));
  r.devices = c.gpus;
  return r;
}

Json intervals_json(const TrainPlan& p) {
  const auto i = uncertainty::builtin_model().interval(regime(p));
  Json j{{"tokens_per_s", i.range(p.tokens_per_s)},
         {"mfu", i.fraction_range(p.mfu)},
         {"days", i.range(p.days)},
         {"gpu_hours", i.range(p.gpu_hours)}};
  if (p.energy_kwh) j["energy_kwh"] = i.range(*p.energy_kwh);
  if (p.cost_usd) j["cost_usd"] = i.range(*p.cost_usd);
  return j;
}

int require_confidence(InferenceSearchResult& r, const Sla& sla, double confidence,
                       const perf::Efficiency* calibration) {
  if (!(confidence > 0 && confidence < 1))
    throw InputError("confidence", fmt::format("{}", confidence),
                     "a probability in (0, 1), e.g. 0.8");
  std::vector<Plan> kept;
  std::vector<long> new_index(r.plans.size(), -1);
  for (size_t k = 0; k < r.plans.size(); ++k) {
    const Plan& p = r.plans[k];
    const auto i = interval(p, confidence, calibration);
    OperatingPoint worst = p.point;
    const double f = i.high(1.0);  // exp(+h)
    worst.tpot = Seconds{worst.tpot.value() * f};
    worst.tpot_p99 = Seconds{worst.tpot_p99.value() * f};
    worst.ttft_mean = Seconds{worst.ttft_mean.value() * f};
    worst.ttft_p99 = Seconds{worst.ttft_p99.value() * f};
    worst.e2e_mean = Seconds{worst.e2e_mean.value() * f};
    worst.e2e_p99 = Seconds{worst.e2e_p99.value() * f};
    if (i.known && !meets_sla(worst, sla)) continue;
    new_index[k] = static_cast<long>(kept.size());
    kept.push_back(p);
  }
  const int removed = static_cast<int>(r.plans.size() - kept.size());
  std::vector<size_t> front;
  for (size_t k : r.cost_latency_front)
    if (k < new_index.size() && new_index[k] >= 0)
      front.push_back(static_cast<size_t>(new_index[k]));
  r.cost_latency_front = front;
  r.plans = std::move(kept);
  return removed;
}

}  // namespace memwall::plan
