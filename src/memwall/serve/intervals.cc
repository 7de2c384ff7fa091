#include "memwall/serve/intervals.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "memwall/core/error.h"
#include "memwall/infer/estimate.h"
#include "memwall/infer/intervals.h"
#include "memwall/uncertainty/model.h"

namespace memwall::serve {

namespace {

Json stats_ranges(const uncertainty::Interval& i, const LatencyStats& s) {
  return Json{{"mean", i.range(s.mean)},
              {"p50", i.range(s.p50)},
              {"p90", i.range(s.p90)},
              {"p99", i.range(s.p99)}};
}

}  // namespace

Json intervals_json(const infer::Deployment& d, const SimulationResult& r) {
  // The regime at the simulation's mean batch and lengths (a static batch of that size).
  const auto batch = std::max<int64_t>(1, std::llround(r.batch_mean));
  const auto input = std::max<int64_t>(1, std::llround(r.mean_input_tokens));
  const auto output = std::max<int64_t>(1, std::llround(r.mean_output_tokens));
  std::optional<infer::Estimate> e;
  try {
    e = infer::estimate(d, {batch, input, output});
  } catch (const InfeasibleError&) {
    e = infer::estimate(d, {1, input, output});
  }
  const auto whole = infer::interval(d, *e, infer::Phase::whole);
  const auto prefill = infer::interval(d, *e, infer::Phase::prefill);
  const auto decode = infer::interval(d, *e, infer::Phase::decode);
  return Json{{"ttft_s", stats_ranges(prefill, r.ttft)},
              {"tpot_s", stats_ranges(decode, r.tpot)},
              {"e2e_s", stats_ranges(whole, r.e2e)},
              {"throughput_tokens_per_s", whole.range(r.throughput_tokens_per_s)},
              {"requests_per_s", whole.range(r.requests_per_s)},
              {"goodput_requests_per_s", whole.range(r.goodput_requests_per_s)}};
}

}  // namespace memwall::serve
