#include "memwall/infer/request.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "memwall/core/error.h"
#include "memwall/infer/continuous.h"
#include "memwall/infer/intervals.h"
#include "memwall/infer/memory_plan.h"

namespace memwall::infer {

BatchSpec parse_batch_spec(const std::string& s, const std::string& field) {
  if (s == "max") return BatchSpec{true, {}};
  BatchSpec out{false, {}};
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 1 || v > (1 << 24))
      throw InputError(field, s, "a positive integer, 'max', or a list such as 1,2,4,8");
    out.sizes.push_back(v);
  }
  if (out.sizes.empty()) throw InputError(field, s, "a positive integer, 'max', or a list");
  return out;
}

Answer answer(const Catalog& catalog, const Request& r) {
  if (r.input_tokens < 1)
    throw InputError("input", std::to_string(r.input_tokens), "a positive token count");
  if (r.output_tokens < 1)
    throw InputError("output", std::to_string(r.output_tokens), "a positive token count");
  if (!r.batch.max && r.batch.sizes.empty())
    throw InputError("batch", "(none)", "a positive integer, 'max', or a list");
  for (int64_t b : r.batch.sizes)
    if (b < 1 || b > (1 << 24))
      throw InputError("batch", std::to_string(b), "a positive integer up to 16777216");
  Answer a{make_deployment(catalog, r.deployment), {}, {}, 0};
  const int64_t context = r.input_tokens + r.output_tokens;
  if (!r.batch.max && r.batch.sizes.size() == 1) {
    a.batches = r.batch.sizes;
    a.estimates.push_back(estimate(a.deployment, {a.batches[0], r.input_tokens, r.output_tokens}));
    a.max_batch = a.estimates[0].max_batch;
    return a;
  }
  a.max_batch = max_batch(a.deployment, context, r.input_tokens);
  if (r.batch.max) {
    if (a.max_batch < 1) {
      plan_memory(a.deployment, 1, context, r.input_tokens);  // throws with the GiB shortfall
      throw InfeasibleError("not even one sequence of " + std::to_string(context) +
                            " tokens fits");
    }
    // Continuous batching under the engine's limits: the steady state of an endless queue.
    const ContinuousEstimate c =
        continuous_max_throughput(a.deployment, r.input_tokens, r.output_tokens);
    const int64_t batch =
        std::clamp<int64_t>(std::llround(c.concurrency), 1, a.max_batch);
    a.batches = {batch};
    Estimate e = estimate(a.deployment, {batch, r.input_tokens, r.output_tokens});
    e.batching = "continuous";
    e.ttft = c.ttft;
    e.tpot = c.tpot;
    e.e2e = c.ttft + c.tpot * double(r.output_tokens - 1);
    e.throughput_tokens_per_s = c.throughput_tokens_per_s;
    e.throughput_tokens_per_s_per_device = c.throughput_tokens_per_s / a.deployment.devices();
    e.requests_per_s = c.requests_per_s;
    e.assumptions.push_back(fmt::format(
        "--batch max: continuous batching at saturation ({} sequences resident on average, {} "
        "binds; {}{}), not one static batch; TTFT excludes queueing",
        std::llround(c.concurrency), c.binding,
        c.limits.chunked_prefill
            ? fmt::format("{:.0f} prompt tokens chunked into each iteration beside the decodes",
                          c.prefill_tokens)
            : std::string("whole prompts in prefill-only iterations"),
        c.limits.reserve_output
            ? "; KV for each request's prompt + output reserved at admission, never preempted"
            : ""));
    // The engine's rate, not the server's: an OpenAI-compatible front end that spends c of CPU
    // per chat request takes in at most 1 / c requests/s per API server process.
    const Deployment& dep = a.deployment;
    const double per_replica = c.requests_per_s / std::max(1, dep.dp);
    if (dep.engine_profile && dep.engine_profile->frontend_per_request.value() > 0 &&
        per_replica * dep.engine_profile->frontend_per_request.value() > 0.5)
      e.assumptions.push_back(fmt::format(
          "front end: {:.0f} requests/s per replica would keep {}'s API server {:.0f} % busy at "
          "{:.1f} ms of CPU per chat request (frontend_us_per_request); past 100 % the engine "
          "waits for it: run several API server processes (vLLM --api-server-count)",
          per_replica, dep.engine_profile->display,
          100 * per_replica * dep.engine_profile->frontend_per_request.value(),
          dep.engine_profile->frontend_per_request.value() * 1e3));
    e.continuous = c;
    a.estimates.push_back(std::move(e));
    return a;
  }
  a.batches = r.batch.sizes;
  a.estimates = sweep(a.deployment, a.batches, r.input_tokens, r.output_tokens);
  if (a.estimates.empty())
    throw InfeasibleError(
        fmt::format("none of the batches fits; the largest that fits is {}", a.max_batch));
  return a;
}

Json to_json(const Answer& a, bool explain) {
  Json out = to_json(a.estimates.back(), a.deployment, explain);
  out["intervals"] = intervals_json(a.deployment, a.estimates.back());
  if (a.sweep()) {
    Json rows = Json::array();
    for (const auto& e : a.estimates) {
      rows.push_back(to_json(e, a.deployment, false));
      rows.back()["intervals"] = intervals_json(a.deployment, e);
    }
    out["sweep"] = rows;
  }
  return out;
}

}  // namespace memwall::infer
