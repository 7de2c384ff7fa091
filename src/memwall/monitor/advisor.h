// The advisor: from GPU samples, which wall the running workload is against (memory bandwidth,
// compute, clocks, or starvation by host/launch/communication overhead), with the numbers behind
// the verdict, and how far the measured DRAM bandwidth and the tokens/s it implies are from
// memwall's own inference estimate (infer::estimate) for the same deployment and workload.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/units.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/monitor/sample.h"

namespace memwall::monitor {

// Thresholds of the diagnosis, on the means over busy samples.
//
// A sample is idle when both SM activity and the coarse GPU util (whichever are known) are below
// 5 %: nothing of note ran, so warm-up and gaps between requests do not dilute the averages.
inline constexpr double kIdleRatio = 0.05;
// Tensor activity 1.0 is the tensor pipes' peak sustained rate (DCGM profiling metrics). Large
// LLM training runs reach about 40-50 % of peak FLOP/s (Narayanan et al. 2021 Table 1: up to
// 52 %), so a mean of 0.40 or more means the tensor pipes set the pace.
inline constexpr double kComputeBoundTensorActive = 0.40;
// DRAM bandwidth utilisation: DCGM documents about 0.8 as the achievable peak of DRAM activity,
// so 0.5 is over 60 % of what the memory can deliver in practice: memory traffic sets the pace.
inline constexpr double kMemoryBoundDramUtil = 0.50;
// SM activity below 0.5 "likely indicates ineffective GPU usage" (DCGM profiling metrics): with
// neither memory nor tensor pipes busy, the GPU waits on the host, kernel launches, collectives,
// or gets batches too small to fill it.
inline constexpr double kStarvedSmActive = 0.50;
// Power or thermal clock-event reasons in a quarter or more of the busy samples: the clocks are
// held down for a sustained share of the time, not just at load steps, so the clocks are a wall.
inline constexpr double kClocksLimitedShare = 0.25;
// Coarse GPU util at or above this while SM activity is low: the "nvidia-smi says 100 %" trap.
inline constexpr double kBusyGpuUtil = 0.90;

enum class Wall { idle, unknown, clocks, compute, memory_bandwidth, starved, mixed };
const char* to_string(Wall w);

// What memwall's inference estimator expects of the deployment, per device.
struct Expected {
  std::string deployment;              // one line: model on gpu x devices, parallelism, workload
  int devices = 1;                     // tp x pp x dp
  BytesPerSecond datasheet_bandwidth;  // catalog memory bandwidth per device
  double dram_util = 0;                // request-average MBU: (prefill MBU x TTFT + decode MBU x
                                       // decode time) / end-to-end
  BytesPerSecond bandwidth;            // dram_util x datasheet_bandwidth
  double mfu = 0;                      // over the whole request
  double tokens_per_s = 0;             // generated tokens/s of the whole deployment
  std::string bound;                   // the estimate's bound
};
Expected expected_from(const infer::Deployment& d, const infer::Estimate& e);
// Builds the deployment and runs infer::estimate (InputError/InfeasibleError as they do).
Expected expect(const Catalog& catalog, const infer::DeploymentOptions& o,
                const infer::Workload& w);

struct Advice {
  Wall wall = Wall::unknown;
  Wall pattern = Wall::unknown;  // the utilisation pattern under the clocks wall (= wall otherwise)
  std::string verdict;           // one sentence with the numbers
  std::vector<std::string> details;  // evidence and what to change, one line each
  size_t samples = 0, busy_samples = 0, gpus = 0;
  // Means over busy samples of every GPU.
  std::optional<double> sm_active, sm_occupancy, tensor_active, dram_util, gpu_util, sm_clock_mhz,
      power_w;
  std::optional<double> clocks_limited_share;
  // Against the estimate (when one was given and the readings are known).
  std::optional<Expected> expected;
  std::optional<BytesPerSecond> measured_bandwidth;  // dram_util x datasheet, per device
  std::optional<double> bandwidth_vs_expected;       // measured / expected bandwidth
  std::optional<double> implied_tokens_per_s;        // expected tokens/s x that ratio
};

Advice advise(const std::vector<GpuSample>& samples, const std::optional<Expected>& expected);

Json to_json(const Advice& a);
std::string format_advice(const Advice& a);

}  // namespace memwall::monitor
