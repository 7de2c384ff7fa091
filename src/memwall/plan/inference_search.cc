#include "memwall/plan/inference_search.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "memwall/core/error.h"

namespace memwall::plan {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool vendor_allowed(const Accelerator& a, const Constraints& c) {
  const std::string v = lower(a.vendor);
  if (c.domestic_only && !is_domestic_vendor(v)) return false;
  if (c.vendors.empty()) return true;
  return std::any_of(c.vendors.begin(), c.vendors.end(),
                     [&](const std::string& allowed) { return v.rfind(lower(allowed), 0) == 0; });
}

infer::StepBatch decode_at(int batch, double context) {
  infer::StepBatch b;
  b.decode_sequences = batch;
  b.decode_context_tokens = static_cast<int64_t>(std::llround(batch * context));
  return b;
}

double gb(Bytes b) { return b.value() / 1e9; }

// The one-sentence explanation of what limits a plan (docs/plan.md "Binding wall"): memory
// capacity when the batch is capped by KV space, otherwise the SLA term that the next sequence
// would break and the largest share of the decode iteration (memory traffic, compute, exposed
// communication or fixed overhead) from the estimator's breakdown.
std::string binding_sentence(const Plan& p, const ReplicaModel& rm, int best, int fit_batch,
                             int max_batch, const std::string& next_failure, const Requirements& r,
                             double context) {
  const Accelerator& a = *p.shape.accelerator;
  const int n = p.shape.devices();
  const Bytes kv = r.kv_bytes_per_token * (best * context);
  if (best >= max_batch && best < fit_batch) {
    return fmt::format(
        "the load binds, not the hardware: all {} sequences fit on one replica within the SLA "
        "(TPOT {:.1f} ms, TTFT p99 {:.2f} s); {} sequences would fit in memory",
        best, p.point.tpot.value() * 1e3, p.point.ttft_p99.value(), fit_batch);
  }
  if (best >= fit_batch) {
    return fmt::format(
        "memory capacity binds: {:.1f} GB of weights leave room for only {} sequences of {:.0f} "
        "tokens ({:.1f} GB of KV at {:.0f} KB/token) on {} x {:.0f} GB; the SLA would allow more",
        gb(r.weights), best, context, gb(kv), r.kv_bytes_per_token.value() / 1e3, n,
        a.memory ? a.memory->value() / 1e9 : 0.0);
  }
  const double step_ms = rm.step(decode_at(best, context)).value() * 1e3;
  if (next_failure.rfind("TTFT", 0) == 0 || next_failure.rfind("prefill", 0) == 0) {
    return fmt::format(
        "prefill binds: prompts take {:.0f}% of each replica's time, so a p99 prompt waits and "
        "runs {:.2f} s; one more sequence per replica gives {}",
        100 * p.point.prefill_share, p.point.ttft_p99.value(), next_failure);
  }
  std::string wall = fmt::format("a decode step over {} sequences takes {:.1f} ms", best, step_ms);
  if (rm.breakdown) {
    const StepShares s = rm.breakdown(decode_at(best, context));
    const double mem = s.memory.value(), cmp = s.compute.value(), com = s.communication.value(),
                 ovh = s.overhead.value();
    const double top = std::max({mem, cmp, com, ovh});
    const double peak = a.memory_bandwidth ? a.memory_bandwidth->value() : 0.0;
    if (top == mem) {
      wall = fmt::format(
          "decode is memory-bandwidth-bound: {:.1f} ms of the {:.1f} ms step stream {:.1f} GB per "
          "device (weights {:.1f} GB + KV {:.1f} GB over {} devices) against {:.2f} TB/s peak each",
          mem * 1e3, step_ms, s.bytes_moved.value() / 1e9, gb(r.weights), gb(kv), n, peak / 1e12);
    } else if (top == cmp) {
      wall = fmt::format("decode is compute-bound: {:.1f} ms of the {:.1f} ms step is matmul work at batch {}",
                         cmp * 1e3, step_ms, best);
    } else if (top == com) {
      wall = fmt::format(
          "the interconnect binds: exposed tensor/pipeline communication is {:.1f} ms of the {:.1f} "
          "ms step on {}",
          com * 1e3, step_ms, p.shape.node ? p.shape.node->id : "this node");
    } else {
      wall = fmt::format(
          "fixed per-step overhead binds: kernel launches and engine work are {:.1f} ms of the "
          "{:.1f} ms step (memory {:.1f} ms, compute {:.1f} ms)",
          ovh * 1e3, step_ms, mem * 1e3, cmp * 1e3);
    }
  }
  return wall + "; one more sequence per replica gives " + next_failure;
}

}  // namespace

bool is_domestic_vendor(const std::string& vendor) {
  const std::string v = lower(vendor);
  return v.rfind("huawei", 0) == 0 || v.rfind("cambricon", 0) == 0 || v.rfind("hygon", 0) == 0;
}

Objective parse_objective(const std::string& s) {
  if (s == "cost") return Objective::cost;
  if (s == "capex") return Objective::capex;
  if (s == "power") return Objective::power;
  if (s == "gpus") return Objective::gpus;
  throw InputError("--objective", s, "cost, capex, power, gpus");
}

std::string to_string(Objective o) {
  switch (o) {
    case Objective::cost: return "cost";
    case Objective::capex: return "capex";
    case Objective::power: return "power";
    case Objective::gpus: return "gpus";
  }
  return "cost";
}

InferenceSearchResult search_inference(const ModelSpec& model, const InferenceWorkload& w,
                                       const SearchSpace& space, const Constraints& constraints,
                                       const SearchOptions& options,
                                       const ReplicaModelFactory& factory,
                                       const cost::PriceBook& prices) {
  w.validate();
  options.cost.validate();
  if (space.weight_precisions.empty() || space.kv_precisions.empty()) {
    throw InputError("precisions", "none", "at least one weight and one KV precision");
  }
  InferenceSearchResult result;
  result.requirements =
      derive_requirements(model, w, space.weight_precisions.front(), space.kv_precisions.front());
  std::map<std::pair<Precision, Precision>, Requirements> reqs;
  const double context = w.input.mean + w.output.mean / 2.0;

  for (const Accelerator* a : space.accelerators) {
    if (!vendor_allowed(*a, constraints)) continue;
    std::vector<const Node*> nodes;
    for (const Node* n : space.nodes) {
      if (lower(n->accelerator) == lower(a->id)) nodes.push_back(n);
    }
    if (nodes.empty()) nodes.push_back(nullptr);  // a lone device
    for (const Node* node : nodes) {
      for (int tp : space.tp) {
        for (int pp : space.pp) {
          if (!node && (tp > 1 || pp > 1)) continue;
          if (node && tp > node->devices) continue;
          if (node && tp * pp > node->devices && !space.fabric) continue;
          if (pp > model.layers) continue;
          if (constraints.max_gpus && tp * pp > *constraints.max_gpus) continue;
          for (Precision wp : space.weight_precisions) {
            for (Precision kp : space.kv_precisions) {
              ReplicaShape shape;
              shape.accelerator = a;
              shape.node = node;
              shape.tp = tp;
              shape.pp = pp;
              shape.ep = model.is_moe() ? tp : 1;
              shape.weights = wp;
              shape.kv = kp;
              ++result.shapes;
              auto reject = [&](const std::string& why) { result.rejected.push_back({shape, why}); };
              if (!a->memory || !a->memory_bandwidth) {
                reject("memory capacity or bandwidth of " + a->id + " unknown");
                continue;
              }
              ReplicaModel rm;
              try {
                rm = factory(model, shape);
              } catch (const InfeasibleError& e) {
                reject(e.what());
                continue;
              } catch (const InputError& e) {
                reject(e.what());
                continue;
              }
              if (!rm.infeasible.empty()) {
                reject(rm.infeasible);
                continue;
              }
              const int fit_batch = rm.max_batch(context);
              // A closed loop never has more sequences in flight than users.
              const int max_batch =
                  w.load.concurrency
                      ? std::min(fit_batch, static_cast<int>(std::ceil(*w.load.concurrency - 1e-9)))
                      : fit_batch;
              if (fit_batch < 1) {
                reject(fmt::format("no room for one sequence of {:.0f} tokens beside the weights", context));
                continue;
              }
              // Largest feasible batch by bisection (feasibility is monotone in the batch).
              std::string why;
              auto feasible = [&](int b, std::string* reason) {
                ++result.configurations;
                return meets_sla(steady_state(rm, w, b), w.sla, reason);
              };
              if (!feasible(1, &why)) {
                reject("even one sequence per replica misses the SLA: " + why);
                continue;
              }
              int lo = 1, hi = max_batch;
              if (feasible(hi, nullptr)) {
                lo = hi;
              } else {
                while (hi - lo > 1) {
                  const int mid = lo + (hi - lo) / 2;
                  (feasible(mid, nullptr) ? lo : hi) = mid;
                }
              }
              const int best = lo;
              std::string next_failure;
              if (best < max_batch) feasible(best + 1, &next_failure);

              // Pareto samples: powers of two below the best batch, and the best batch.
              for (int b = 1;; b *= 2) {
                const int bb = std::min(b, best);
                const OperatingPoint op = steady_state(rm, w, bb);
                ++result.configurations;
                if (!op.stable) {  // not a point the replica can hold; never on a frontier
                  if (bb == best) break;
                  continue;
                }
                result.throughput_points.push_back(
                    {op.generated_tokens_per_s / shape.devices(), 1.0 / op.tpot.value()});
                result.throughput_labels.push_back(fmt::format("{} @ batch {}", shape.describe(), bb));
                if (bb == best) break;
              }

              Plan plan;
              plan.shape = shape;
              plan.point = steady_state(rm, w, best);
              plan.batch_cap = best;
              const double total_concurrency =
                  w.load.concurrency ? *w.load.concurrency
                                     : *w.load.rate_per_s * plan.point.e2e_mean.value();
              plan.replicas = static_cast<int>(std::ceil(total_concurrency / best - 1e-9));
              // Report the point the replicas actually run at: the load spread evenly (no more
              // than `best` sequences each, so the SLA still holds by monotonicity).
              const int actual = std::max(
                  1, std::min(best, static_cast<int>(std::ceil(total_concurrency / plan.replicas - 1e-9))));
              if (actual != best) {
                plan.point = steady_state(rm, w, actual);
                ++result.configurations;
              }
              plan.devices = plan.replicas * shape.devices();
              plan.concurrency = total_concurrency;
              plan.generated_tokens_per_s = total_concurrency / plan.point.tpot.value();
              plan.tokens_per_s_per_device = plan.generated_tokens_per_s / plan.devices;
              plan.tokens_per_s_per_user = 1.0 / plan.point.tpot.value();
              const infer::StepBatch busy = decode_at(best, context);
              const double activity = rm.activity ? rm.activity(busy) : 1.0;
              plan.cost = cost::deployment_cost(*a, plan.devices, plan.generated_tokens_per_s,
                                                activity, prices, options.cost);
              if (rm.communication_share) {
                plan.scaling_efficiency = 1.0 - rm.communication_share(busy);
              } else if (shape.devices() == 1) {
                plan.scaling_efficiency = 1.0;
              }
              auto key = std::make_pair(wp, kp);
              if (!reqs.count(key)) reqs.emplace(key, derive_requirements(model, w, wp, kp));
              plan.binding = binding_sentence(plan, rm, best, fit_batch, max_batch, next_failure, reqs.at(key), context);

              switch (options.objective) {
                case Objective::cost: plan.objective = plan.cost.usd_per_million_tokens; break;
                case Objective::capex:
                  if (plan.cost.device.capex) plan.objective = plan.cost.device.capex->value() * plan.devices;
                  break;
                case Objective::power:
                  if (plan.cost.facility_power) plan.objective = plan.cost.facility_power->value();
                  break;
                case Objective::gpus: plan.objective = plan.devices; break;
              }
              // Constraints on the whole deployment.
              if (constraints.max_gpus && plan.devices > *constraints.max_gpus) {
                reject(fmt::format("needs {} devices > --max-gpus {}", plan.devices, *constraints.max_gpus));
                continue;
              }
              if (constraints.power_cap_w) {
                if (!plan.cost.facility_power) {
                  reject("power unknown (TDP of " + a->id + " unknown) under --power-cap");
                  continue;
                }
                if (plan.cost.facility_power->value() > *constraints.power_cap_w) {
                  reject(fmt::format("draws {:.1f} kW > --power-cap {:.1f} kW",
                                     plan.cost.facility_power->value() / 1e3, *constraints.power_cap_w / 1e3));
                  continue;
                }
              }
              if (constraints.budget_usd) {
                if (!plan.cost.tco) {
                  reject("cost unknown under --budget");
                  continue;
                }
                if (plan.cost.tco->value() > *constraints.budget_usd) {
                  reject(fmt::format("costs ${:.0f} over {:.0f} years > --budget ${:.0f}",
                                     plan.cost.tco->value(), plan.cost.tco_years, *constraints.budget_usd));
                  continue;
                }
              }
              result.plans.push_back(std::move(plan));
            }
          }
        }
      }
    }
  }

  // Rank: known objective ascending (ties broken by fewer devices, then name for determinism),
  // then plans whose objective is unknown.
  std::stable_sort(result.plans.begin(), result.plans.end(), [](const Plan& x, const Plan& y) {
    if (x.objective.has_value() != y.objective.has_value()) return x.objective.has_value();
    if (x.objective && *x.objective != *y.objective) return *x.objective < *y.objective;
    if (x.devices != y.devices) return x.devices < y.devices;
    return x.shape.describe() < y.shape.describe();
  });
  for (size_t i = 1; i < result.plans.size(); ++i) {
    const auto& prev = result.plans[i - 1].objective;
    const auto& cur = result.plans[i].objective;
    if (prev && cur && *cur <= *prev * (1.0 + options.near_tie_fraction)) result.plans[i].near_tie = true;
  }
  result.throughput_front = pareto_front(result.throughput_points, true, true);
  std::vector<Objective2> cl;
  std::vector<size_t> priced;
  for (size_t i = 0; i < result.plans.size(); ++i) {
    if (!result.plans[i].cost.usd_per_million_tokens) continue;
    cl.push_back({*result.plans[i].cost.usd_per_million_tokens, result.plans[i].point.e2e_mean.value()});
    priced.push_back(i);
  }
  for (size_t k : pareto_front(cl, false, false)) result.cost_latency_front.push_back(priced[k]);
  return result;
}

}  // namespace memwall::plan
