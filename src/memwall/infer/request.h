// An inference question as a front end asks it (the CLI's `memwall infer`, the Python module):
// a deployment, the batch per replica (one size, the largest that fits, or a sweep of sizes) and
// the sequence lengths. `answer` validates it, builds the deployment and runs the estimates;
// `to_json` gives the one JSON object both front ends return, so their keys cannot drift apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memwall/catalog/catalog.h"
#include "memwall/core/document.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"

namespace memwall::infer {

// The batch: `max` (the largest that fits at input + output tokens) or the sizes listed.
struct BatchSpec {
  bool max = false;
  std::vector<int64_t> sizes{1};
};

// "N", "max" or a comma list "1,2,4,8"; InputError naming `field` otherwise.
BatchSpec parse_batch_spec(const std::string& s, const std::string& field);

struct Request {
  DeploymentOptions deployment;
  BatchSpec batch;
  int64_t input_tokens = 0;   // prompt length per sequence
  int64_t output_tokens = 0;  // generated tokens per sequence, the first included
};

struct Answer {
  Deployment deployment;
  std::vector<int64_t> batches;     // the sizes asked (the resolved size for `max`)
  std::vector<Estimate> estimates;  // one per size that fits, in the order asked
  int64_t max_batch = 0;            // largest batch that fits at input + output tokens
  bool sweep() const { return batches.size() > 1; }
};

// InputError for bad input (field named), InfeasibleError when nothing asked fits (with the
// shortfall or the largest batch that does).
Answer answer(const Catalog& catalog, const Request& request);

// The answer as `memwall infer --json` prints it: the estimate of the (last) batch, with
// "sweep": [one object per batch] when several were asked; per-operator tables when `explain`.
Json to_json(const Answer& a, bool explain);

}  // namespace memwall::infer
