#include "memwall/plan/offload_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "memwall/core/error.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/memory_plan.h"

namespace memwall::plan {
namespace {

// Hosts tried for a GPU: its default, then one- and two-socket EPYC Genoa servers (768 GiB per
// socket installed); the first that holds the model in DRAM, else the fastest with NVMe.
const char* const kServerHosts[] = {"amd-epyc-9654", "2xamd-epyc-9654"};

std::string binding_of(const offload::Estimate& e) {
  const offload::StepSplit& s = e.decode;
  return fmt::format(
      "{} binds: a decode step takes {:.1f} ms (GPU {:.1f}, CPU {:.1f}, transfers "
      "{:.1f}, NVMe {:.1f}) with {} on the CPU side",
      s.bound, s.total.value() * 1e3, s.gpu.value() * 1e3, s.cpu.value() * 1e3,
      s.transfer.value() * 1e3, s.disk.value() * 1e3, offload::to_string(e.placement.strategy));
}

}  // namespace

Json host_cost_json(const cost::HostCost& h) {
  auto opt = [](const auto& v) { return v ? Json(v->value()) : Json(nullptr); };
  return {{"per_hour_usd", opt(h.hour.total)},
          {"capex_usd", opt(h.hour.capex)},
          {"cpu_usd", opt(h.cpu)},
          {"dram_usd", opt(h.dram)},
          {"nvme_usd", opt(h.nvme)},
          {"platform_usd", opt(h.platform)},
          {"power_w", opt(h.hour.board_power)},
          {"covers", h.covers},
          {"excluded", h.excluded},
          {"unknown", h.hour.unknown},
          {"sources", h.hour.sources}};
}

std::vector<OffloadPlan> search_offload(const Catalog& catalog, const ModelSpec& model,
                                        const InferenceWorkload& w, const SearchSpace& space,
                                        const cost::PriceBook& prices,
                                        const cost::CostOverrides& overrides, int top) {
  std::vector<OffloadPlan> out;
  const int64_t batch =
      w.load.concurrency
          ? std::max<int64_t>(1, static_cast<int64_t>(std::ceil(*w.load.concurrency)))
          : 1;
  const int64_t input = std::max<int64_t>(1, std::llround(w.input.mean));
  const int64_t output = std::max<int64_t>(2, std::llround(w.output.mean));
  for (const Accelerator* a : space.accelerators) {
    if (!a->memory) continue;
    std::optional<OffloadPlan> best;
    for (Precision p : space.weight_precisions) {
      infer::DeploymentOptions o;
      o.model = model.id;
      o.gpu = a->id;
      o.weight_precision = p;
      std::optional<infer::Deployment> d;
      try {
        d = infer::make_deployment(model, *a, std::nullopt, std::nullopt, o);
        // Only where the model's weights do not fit the one device.
        if (infer::weight_bytes_per_device(*d) < infer::device_capacity(*a) * d->memory_utilization)
          continue;
      } catch (const InputError&) {
        continue;
      } catch (const InfeasibleError&) {
        continue;
      }
      std::vector<offload::HostOptions> hosts = {{}};
      for (const char* id : kServerHosts) hosts.push_back({std::string(id), std::nullopt, {}});
      for (const auto& ho : hosts) {
        try {
          const offload::HostSetup h = offload::resolve_host(catalog, *a, ho);
          const offload::Estimate e = offload::best(*d, h, {batch, input, output});
          OffloadPlan plan{
              a->id,         p, h, e, batch, double(batch) / e.infer.tpot.value(), false,
              binding_of(e), {},    {},    {}};
          plan.meets_sla = e.infer.ttft <= w.sla.ttft_p99 && e.infer.tpot <= w.sla.tpot_p99;
          const bool in_dram = e.placement.disk_used.value() <= 0;
          if (!best || plan.generated_tokens_per_s > best->generated_tokens_per_s)
            best = std::move(plan);
          if (in_dram) break;  // the first host that holds it in DRAM: bigger ones only if needed
        } catch (const InfeasibleError&) {
          continue;
        } catch (const InputError&) {
          continue;
        }
      }
    }
    if (!best) continue;
    best->cost = cost::deployment_cost(*a, 1, best->generated_tokens_per_s, 1.0, prices, overrides);
    const offload::StepSplit& step = best->estimate.decode;
    const double cpu_busy = step.total.value() > 0 ? step.cpu.value() / step.total.value() : 0.0;
    best->host_cost = cost::host_cost(best->host.host, best->host.memory,
                                      best->estimate.placement.disk_used, cpu_busy, prices, overrides);
    best->total = cost::add_host(best->cost, best->host_cost);
    out.push_back(std::move(*best));
  }
  std::stable_sort(out.begin(), out.end(), [](const OffloadPlan& x, const OffloadPlan& y) {
    const auto tx = x.total.usd_per_million_tokens, ty = y.total.usd_per_million_tokens;
    if (tx.has_value() != ty.has_value()) return tx.has_value();
    if (tx && ty && *tx != *ty) return *tx < *ty;
    const auto cx = x.cost.usd_per_million_tokens, cy = y.cost.usd_per_million_tokens;
    if (cx.has_value() != cy.has_value()) return cx.has_value();
    if (cx && cy && *cx != *cy) return *cx < *cy;
    return x.generated_tokens_per_s > y.generated_tokens_per_s;
  });
  if (out.size() > size_t(std::max(0, top))) out.resize(size_t(std::max(0, top)));
  return out;
}

Json offload_plans_json(const std::vector<OffloadPlan>& plans) {
  Json rows = Json::array();
  for (const auto& p : plans) {
    const auto& e = p.estimate;
    auto opt = [](const auto& v) { return v ? Json(v->value()) : Json(nullptr); };
    rows.push_back(
        {{"gpu", p.gpu},
         {"devices", 1},
         {"weight_precision", to_string(p.weight)},
         {"strategy", offload::to_string(e.placement.strategy)},
         {"host", p.host.host.id},
         {"host_sockets", p.host.host.sockets},
         {"host_memory_bytes", p.host.memory.value()},
         {"batch", p.batch},
         {"ttft_s", e.infer.ttft.value()},
         {"tpot_s", e.infer.tpot.value()},
         {"generated_tokens_per_s", p.generated_tokens_per_s},
         {"meets_sla", p.meets_sla},
         {"bound", e.decode.bound},
         {"binding", p.binding},
         {"gpu_bytes", e.placement.gpu_used.value()},
         {"host_bytes", e.placement.host_used.value()},
         {"disk_bytes", e.placement.disk_used.value()},
         {"cost",
          {{"gpu_per_hour_usd", opt(p.cost.per_hour)},
           {"usd_per_million_tokens_gpu_only",
            p.cost.usd_per_million_tokens ? Json(*p.cost.usd_per_million_tokens) : Json(nullptr)},
           {"gpu_capex_usd", opt(p.cost.capex_total)},
           {"host_priced", p.host_cost.priced()},
           {"host", host_cost_json(p.host_cost)},
           {"total_per_hour_usd", opt(p.total.per_hour)},
           {"usd_per_million_tokens",
            p.total.usd_per_million_tokens ? Json(*p.total.usd_per_million_tokens) : Json(nullptr)},
           {"total_capex_usd", opt(p.total.capex)},
           {"total_tco_usd", opt(p.total.tco)},
           {"tco_years", p.cost.tco_years},
           {"note", p.host_cost.priced()
                        ? "GPU + host (CPUs, DRAM, NVMe); see host.covers and host.excluded"
                        : "the host's price is unknown (host.unknown): the total is unknown, the "
                          "GPU's figures stand alone"}}}});
  }
  return rows;
}

}  // namespace memwall::plan
