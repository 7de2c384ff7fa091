// Predictions for the "training" cases of the validation set, on the catalog's hardware.
#include <optional>

#include "memwall/train/setup.h"
#include "memwall/validate/case.h"
#include "memwall/validate/training_case.h"

namespace memwall::validate {

CaseResult predict_training_case(const Json& c, const Catalog& catalog) {
  CaseResult r = start_result(c);
  try {
    TrainingCase tc = translate_training_case(c);
    if (!tc.zoo_model.empty()) tc.model = catalog.model(tc.zoo_model);
    std::optional<Fabric> fabric;
    if (tc.config.gpus > catalog.node(tc.node).devices) fabric = catalog.fabric(tc.fabric);
    const train::TrainSetup setup = train::make_setup(
        tc.model, catalog.accelerator(tc.gpu), catalog.node(tc.node), fabric);
    r.predicted = predict_training_metric(tc, setup);
    r.assumptions = tc.assumptions;
  } catch (const std::exception& ex) {
    r.skipped_reason = ex.what();
  }
  return r;
}

}  // namespace memwall::validate
