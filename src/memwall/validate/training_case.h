// A published training measurement translated into what memwall can estimate: the model shape,
// the hardware ids, the TrainConfig (with every unstated setting given a stated default) and the
// conversion from memwall's estimate to the case's metric and unit.
#pragma once

#include <string>

#include "memwall/core/document.h"
#include "memwall/model/transformer.h"
#include "memwall/train/config.h"
#include "memwall/train/estimate.h"
#include "memwall/train/setup.h"

namespace memwall::validate {

enum class TrainingMetric {
  narayanan_tflops_per_gpu,  // TFLOP/s per GPU with recomputation counted (Narayanan eq. 3, 96 B s L h^2 ...)
  step_time_s,
  layer_time_ms,             // forward + backward (+ recompute) of one layer, one micro-batch
  tokens_per_s_per_gpu,
  gpu_hours,                 // GPU-hours to train config "tokens" tokens
};

struct TrainingCase {
  ModelSpec model;
  std::string zoo_model;          // a built-in model id (model.zoo_id); the caller loads it
  std::string gpu, node, fabric;  // catalog ids
  double tokens = 0;              // for TrainingMetric::gpu_hours
  train::TrainConfig config;
  TrainingMetric metric = TrainingMetric::step_time_s;
  std::string assumptions;
  // The framework of data/frameworks/training.json whose calibration (`memwall calibrate`,
  // validate --calibrate-on) the case's prediction takes: the stack the translation models.
  std::string framework = "megatron";
};

// InputError when the case cannot be expressed (unknown hardware or model shape).
TrainingCase translate_training_case(const Json& c);
// The case's metric from memwall's estimate on `setup` (built from the case's ids).
double predict_training_metric(const TrainingCase& tc, const train::TrainSetup& setup);
// The case's metric from an estimate already made (e.g. with an offload applied); not for
// layer_time_ms.
double training_metric(const TrainingCase& tc, const train::TrainSetup& setup,
                       const train::TrainEstimate& e);

}  // namespace memwall::validate
