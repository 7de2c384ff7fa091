#include "memwall/plan/train_offload_plans.h"

#include <fmt/format.h>

#include <algorithm>

#include "memwall/core/error.h"
#include "memwall/core/text.h"
#include "memwall/plan/offload_plans.h"
#include "memwall/plan/vendors.h"
#include "memwall/train/offload_request.h"
#include "memwall/train/setup.h"

namespace memwall::plan {

std::vector<TrainOffloadPlan> search_training_offload(const Catalog& catalog,
                                                      const ModelSpec& model, const TrainGoal& goal,
                                                      const TrainSpace& space,
                                                      const cost::CostOverrides& cost_options,
                                                      const cost::PriceBook& prices, int top) {
  std::vector<TrainOffloadPlan> plans;
  const char* specs[] = {"optimizer:cpu", "optimizer:cpu,params:cpu", "optimizer:nvme,params:nvme"};
  for (const Accelerator* a : space.accelerators) {
    if (!vendor_allowed(*a, space.domestic_only, space.vendors)) continue;
    const Precision precision = a->peak(Precision::bf16) ? Precision::bf16 : Precision::fp16;
    for (const Node* node : space.nodes) {
      if (to_lower(node->accelerator) != to_lower(a->id)) continue;
      std::vector<int> counts;
      for (int g : {1, 2, 4, node->devices, 2 * node->devices, 4 * node->devices})
        if (g <= goal.max_gpus && (g <= node->devices || g % node->devices == 0) &&
            std::find(counts.begin(), counts.end(), g) == counts.end())
          counts.push_back(g);
      std::optional<TrainOffloadPlan> best;
      for (int gpus : counts) {
        const std::optional<Fabric> fabric = gpus > node->devices && space.fabric
                                                 ? std::optional<Fabric>(*space.fabric)
                                                 : std::nullopt;
        if (gpus > node->devices && !fabric) continue;
        train::TrainSetup setup;
        offload::HostSetup host;
        try {
          setup = train::make_setup(model, *a, *node, fabric);
          host = train::training_host(catalog, *a, *node, {});
        } catch (const std::exception&) {
          break;  // the accelerator or its host lacks a fact the estimator needs
        }
        for (const char* spec_text : specs) {
          const train::OffloadSpec spec = train::parse_offload(spec_text);
          for (int64_t mb : {1, 2, 4, 8}) {
            train::TrainConfig c;
            c.gpus = gpus;
            c.dp = gpus;
            c.micro_batch = mb;
            c.seq = goal.seq;
            c.precision = precision;
            c.recompute = train::Recompute::full;
            c.zero = spec.params != train::OffloadDevice::none ? 3 : 2;
            c.zero3_collectives_per_layer = 6;  // DeepSpeed fetches each sub-module
            const int64_t per_step = mb * gpus;
            c.global_batch =
                std::max<int64_t>(1, int64_t(goal.batch_tokens / double(goal.seq)) / per_step) *
                per_step;
            try {
              train::EstimateOptions unchecked;
              unchecked.require_fit = false;
              const train::OffloadedEstimate o =
                  train::apply_offload(setup, train::estimate_training(setup, c, unchecked), spec,
                                       host, std::max(1, std::min(gpus, node->devices) / 2));
              if (!o.estimate.memory.fits()) continue;
              const train::TrainRun run =
                  train::train_run(setup, o.estimate, goal.tokens, std::nullopt);
              TrainOffloadPlan p;
              p.accelerator = a;
              p.node = node;
              p.config = o.estimate.config;
              p.spec = spec;
              p.host = fmt::format("{} x {}, {:.0f} GiB", host.host.sockets, host.host.id,
                                   host.memory.value() / kGiB);
              p.tokens_per_s = o.estimate.tokens_per_s;
              p.mfu = o.estimate.mfu;
              p.days = run.time.value() / 86400.0;
              p.gpu_hours = run.gpu_hours;
              p.meets_deadline = p.days <= goal.days;
              const cost::DeviceHourCost dc =
                  cost::device_hour_cost(*a, prices, cost_options, o.estimate.busy_fraction, node);
              if (dc.total) p.cost_usd = dc.total->value() * run.gpu_hours;
              p.nodes = (gpus + node->devices - 1) / node->devices;
              p.host_cost = cost::host_cost(host.host, host.memory, o.offload.nvme_per_node, 1.0,
                                            prices, cost_options);
              // A node's price carries its host: the platform share of an owned server (unless
              // --capex prices the device alone) or the rented instance.
              p.host_in_gpu_price = dc.basis == cost::PricingBasis::cloud || !cost_options.capex_usd;
              if (p.host_in_gpu_price) {
                p.total_cost_usd = p.cost_usd;
              } else if (p.cost_usd && p.host_cost.hour.total) {
                p.total_cost_usd = *p.cost_usd + p.host_cost.hour.total->value() * p.nodes * p.days * 24.0;
              }
              p.memory_per_gpu = o.estimate.memory.total();
              p.host_per_node = o.offload.host_per_node;
              p.nvme_per_node = o.offload.nvme_per_node;
              p.bound = o.offload.bound;
              // Meeting the deadline first; then the cheapest (fewest GPU-hours without a
              // price) among those that meet it, the fastest among those that do not.
              auto better = [](const TrainOffloadPlan& x, const TrainOffloadPlan& y) {
                if (x.meets_deadline != y.meets_deadline) return x.meets_deadline;
                if (!x.meets_deadline) return x.days < y.days;
                return (x.total_cost_usd ? *x.total_cost_usd : x.gpu_hours) <
                       (y.total_cost_usd ? *y.total_cost_usd : y.gpu_hours);
              };
              if (!best || better(p, *best)) best = std::move(p);
            } catch (const InputError&) {
            } catch (const InfeasibleError&) {
            }
          }
        }
      }
      if (best) plans.push_back(std::move(*best));
    }
  }
  std::sort(plans.begin(), plans.end(), [](const TrainOffloadPlan& x, const TrainOffloadPlan& y) {
    if (x.meets_deadline != y.meets_deadline) return x.meets_deadline;
    return x.days < y.days;
  });
  if (int(plans.size()) > top) plans.resize(static_cast<size_t>(top));
  return plans;
}

Json train_offload_plans_json(const std::vector<TrainOffloadPlan>& plans) {
  Json out = Json::array();
  for (const auto& p : plans)
    out.push_back({{"offload", true},
                   {"accelerator", p.accelerator->id},
                   {"node", p.node->id},
                   {"gpus", p.config.gpus},
                   {"strategy", train::to_string(p.spec)},
                   {"zero", p.config.zero},
                   {"micro_batch", p.config.micro_batch},
                   {"global_batch", p.config.global_batch},
                   {"precision", std::string(to_string(p.config.precision))},
                   {"host", p.host},
                   {"tokens_per_s", p.tokens_per_s},
                   {"mfu", p.mfu},
                   {"days", p.days},
                   {"gpu_hours", p.gpu_hours},
                   {"meets_deadline", p.meets_deadline},
                   {"cost_usd", p.cost_usd ? Json(*p.cost_usd) : Json(nullptr)},
                   {"total_cost_usd", p.total_cost_usd ? Json(*p.total_cost_usd) : Json(nullptr)},
                   {"host_priced", p.host_in_gpu_price || p.host_cost.priced()},
                   {"host_in_gpu_price", p.host_in_gpu_price},
                   {"nodes", p.nodes},
                   {"host_cost", host_cost_json(p.host_cost)},
                   {"memory_per_gpu_bytes", p.memory_per_gpu.value()},
                   {"host_bytes_per_node", p.host_per_node.value()},
                   {"nvme_bytes_per_node", p.nvme_per_node.value()},
                   {"bound", p.bound}});
  return out;
}

}  // namespace memwall::plan
