// Predictions for the collective-bandwidth (nccl-tests) microbenchmark cases.
#include "memwall/validate/case.h"

namespace memwall::validate {

CaseResult predict_net_microbench_case(const Json& c, const Catalog&) {
  CaseResult r = start_result(c);
  r.skipped_reason = "collective microbenchmarks are not modelled in this build yet";
  return r;
}

}  // namespace memwall::validate
