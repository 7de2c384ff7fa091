#include "memwall/infer/request.h"

#include <sstream>
#include <string>

#include <fmt/format.h>

#include "memwall/core/error.h"
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
    a.batches = {a.max_batch};
    a.estimates.push_back(estimate(a.deployment, {a.max_batch, r.input_tokens, r.output_tokens}));
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
