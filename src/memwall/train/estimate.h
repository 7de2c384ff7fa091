// The training estimate for one configuration: step time as a critical-path breakdown that sums
// exactly to it, memory per GPU, throughput, model and hardware FLOP/s, MFU and HFU. This is the
// library entry point the `memwall train` command and the training planner call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/train/config.h"
#include "memwall/train/memory.h"
#include "memwall/train/setup.h"

namespace memwall::train {

// Where the step time goes on the critical path (the slowest pipeline stage). Sums to the step.
struct StepBreakdown {
  Seconds compute;        // forward + backward kernels of all micro-batches
  Seconds recompute;      // recomputed forward kernels
  Seconds tp_comm;        // exposed tensor-parallel collectives
  Seconds cp_comm;        // exposed context-parallel ring exchange
  Seconds ep_comm;        // exposed expert-parallel all-to-all
  Seconds pp_comm;        // exposed pipeline send/recv
  Seconds dp_comm;        // exposed data-parallel gradient reduction / parameter gathers
  Seconds bubble;         // pipeline fill and drain: (p-1)/v x per-micro-batch stage time
  Seconds optimizer;      // optimizer step (memory bound)
  Seconds host_overhead;  // per-step host work not hidden
  Seconds total() const {
    return compute + recompute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm + bubble +
           optimizer + host_overhead;
  }
};

struct TrainEstimate {
  TrainConfig config;     // as evaluated (dp filled in)
  int64_t micro_batches = 0;
  Seconds step_time;
  StepBreakdown breakdown;
  MemoryBreakdown memory;
  double tokens_per_step = 0;
  double tokens_per_s = 0;          // whole cluster
  double tokens_per_s_per_gpu = 0;
  Flops model_flops_per_step;       // 6N + attention (Narayanan eq. 3), no recomputation
  Flops hardware_flops_per_step;    // + recomputed forward work
  FlopsPerSecond peak_per_gpu;      // dense peak of the matmul precision
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;
  double hfu = 0;
  double bubble_fraction = 0;       // bubble / step
  double busy_fraction = 0;         // (compute + recompute + optimizer) / step, for energy
  std::vector<int> stage_layers;    // transformer layers per pipeline stage, first to last
  int slowest_stage = 0;            // the stage that sets the steady-state pace
  std::string pipeline_split;       // how the layers were split, in words
  std::vector<std::string> notes;   // assumptions worth telling the user
};

struct EstimateOptions {
  bool require_fit = true;  // InfeasibleError when memory exceeds the accelerator's capacity
};

// Throws InputError for bad values and InfeasibleError (with numbers) for configurations that
// cannot run: TP x PP x CP x DP != GPUs, heads or KV heads not divisible by TP, layers not
// divisible by PP x V, global batch not divisible by micro-batch x DP, memory over capacity.
void check_configuration(const TrainSetup& setup, const TrainConfig& c);
TrainEstimate estimate_training(const TrainSetup& setup, const TrainConfig& c,
                                const EstimateOptions& options = {});

// Time, GPU-hours, energy and cost to train `tokens` tokens at the estimated step rate.
struct TrainRun {
  double tokens = 0;
  double steps = 0;
  Seconds time;
  double gpu_hours = 0;
  double average_power_per_gpu_w = 0;  // TDP x modelled utilisation
  std::optional<double> energy_kwh;    // unknown when the accelerator's TDP is unknown
  std::optional<Dollars> cost;         // when a price per GPU-hour is given
};
TrainRun train_run(const TrainSetup& setup, const TrainEstimate& e, double tokens,
                   std::optional<double> price_per_gpu_hour);

}  // namespace memwall::train
