#include "memwall/offload/request.h"

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::offload {
namespace {

// The fastest offload for a request that does not fit on the GPU alone, as a sentence.
std::optional<std::string> suggestion(const Catalog& catalog, const Request& r) {
  try {
    const infer::Deployment d = infer::make_deployment(catalog, r.infer.deployment);
    if (d.devices_per_replica() != 1) return std::nullopt;
    const HostSetup h = resolve_host(catalog, d.gpu, r.host);
    const int64_t batch =
        r.infer.batch.max || r.infer.batch.sizes.empty() ? 1 : r.infer.batch.sizes[0];
    const Estimate e = best(d, h, {batch, r.infer.input_tokens, r.infer.output_tokens});
    const Placement& p = e.placement;
    return fmt::format(
        "--offload auto would run it as {} on {} + {} ({:.0f} GiB DRAM): TPOT {:.1f} ms ({:.2f} "
        "tokens/s per sequence), TTFT {:.2f} s, {:.1f} GiB on the GPU, {:.1f} GiB in host "
        "memory{}, bound by {}",
        to_string(p.strategy), d.gpu.id, h.host.id, h.memory.value() / kGiB,
        e.infer.tpot.value() * 1e3, e.infer.tpot.value() > 0 ? 1 / e.infer.tpot.value() : 0.0,
        e.infer.ttft.value(), p.gpu_used.value() / kGiB, p.host_used.value() / kGiB,
        p.disk_used.value() > 0 ? fmt::format(", {:.1f} GiB on NVMe", p.disk_used.value() / kGiB)
                                : std::string(),
        e.bound);
  } catch (const InputError&) {
    return std::nullopt;
  } catch (const InfeasibleError&) {
    return std::nullopt;
  }
}

}  // namespace

Answer answer(const Catalog& catalog, const Request& r) {
  if (r.strategy.strategy == Strategy::none) {
    try {
      infer::Answer a = infer::answer(catalog, r.infer);
      Answer out{a.deployment, std::nullopt, a.batches, {}, std::move(a)};
      return out;
    } catch (const InfeasibleError& err) {
      if (auto s = suggestion(catalog, r))
        throw InfeasibleError(std::string(err.what()) + "; " + *s);
      throw;
    }
  }
  if (r.infer.input_tokens < 1)
    throw InputError("input", std::to_string(r.infer.input_tokens), "a positive token count");
  if (r.infer.output_tokens < 1)
    throw InputError("output", std::to_string(r.infer.output_tokens), "a positive token count");
  Answer a{infer::make_deployment(catalog, r.infer.deployment), std::nullopt, {}, {}, {}};
  a.host = resolve_host(catalog, a.deployment.gpu, r.host);
  const infer::Workload one{1, r.infer.input_tokens, r.infer.output_tokens};
  if (r.infer.batch.max) {
    const Estimate first = estimate(a.deployment, *a.host, r.strategy, one);
    a.batches = {std::max<int64_t>(1, first.infer.max_batch)};
  } else {
    a.batches = r.infer.batch.sizes;
  }
  std::string last_error;
  for (int64_t b : a.batches) {
    try {
      a.estimates.push_back(estimate(a.deployment, *a.host, r.strategy,
                                     {b, r.infer.input_tokens, r.infer.output_tokens}));
    } catch (const InfeasibleError& err) {
      if (a.batches.size() == 1) throw;
      last_error = err.what();
    }
  }
  if (a.estimates.empty()) throw InfeasibleError("none of the batches fits: " + last_error);
  return a;
}

Json to_json(const Answer& a, bool explain) {
  if (a.gpu_only) return infer::to_json(*a.gpu_only, explain);
  auto one = [&](const Estimate& e) {
    Json j = infer::to_json(e.infer, a.deployment, false);
    j["memory_per_host_bytes"] = e.placement.host_used.value();
    j["memory_on_disk_bytes"] = e.placement.disk_used.value();
    j["offload"] = to_json(e, *a.host);
    return j;
  };
  Json out = one(a.estimates.back());
  if (a.estimates.size() > 1) {
    Json rows = Json::array();
    for (const auto& e : a.estimates) rows.push_back(one(e));
    out["sweep"] = rows;
  }
  return out;
}

}  // namespace memwall::offload
