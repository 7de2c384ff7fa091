// The 80 % intervals of a training estimate (uncertainty/model.h): the regime of the step (what
// dominates its critical path, hardware, precision, parallelism, scale) and the JSON object
// `intervals: {"step_time_s": [low, high], ...}` that train's --json carries.
#pragma once

#include <string>

#include "memwall/core/document.h"
#include "memwall/train/config.h"
#include "memwall/train/estimate.h"
#include "memwall/train/setup.h"
#include "memwall/perf/efficiency.h"
#include "memwall/uncertainty/model.h"
#include "memwall/uncertainty/regime.h"

namespace memwall::train {

// bound: the largest part of the step's critical path (compute incl. recompute and optimizer,
// exposed communication, pipeline bubble, host overhead); engine: the parallelism
// (tp/pp "megatron", ZeRO-3 as "fsdp" or "deepspeed-zero3", plain "data-parallel").
uncertainty::Regime regime(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e);

// The parallelism label of the engine dimension: "megatron" (tp, pp or cp > 1), "fsdp" or
// "deepspeed-zero3" (ZeRO-3 with one or several collectives per layer), "data-parallel".
std::string parallelism(const TrainConfig& c);

// The 80 % interval of a training estimate: the built-in model's, or on a framework a
// `memwall calibrate` profile fitted (`framework`, with its records' spread) on this accelerator,
// the calibrated one (uncertainty::calibrated_interval).
uncertainty::Interval interval(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e,
                               const perf::FrameworkCalibration* framework = nullptr);
// {"step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu",
//  "hardware_tflops_per_gpu", "mfu", "hfu"} -> [low, high] from interval().
Json intervals_json(const TrainSetup& setup, const TrainConfig& c, const TrainEstimate& e,
                    const perf::FrameworkCalibration* framework = nullptr);

}  // namespace memwall::train
