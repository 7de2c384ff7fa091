// The regime of one prediction: what kind of question it answers and which physics dominated it
// (compute-, memory-bandwidth- or communication-bound), on what hardware family, in what
// precision, through which engine or parallelism, at what scale. `memwall validate` groups its
// errors by these dimensions and the uncertainty model (model.h) widens or narrows the interval
// by them. Dimensions are an open list of (name, value) pairs, so an estimator can add one
// without changing the model's code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memwall/core/precision.h"
#include "memwall/hw/accelerator.h"
#include "memwall/perf/efficiency.h"

namespace memwall::uncertainty {

struct Regime {
  std::string kind;  // inference | training | memory | microbench
  std::vector<std::pair<std::string, std::string>> dims;  // e.g. ("bound", "memory")
  int64_t devices = 0;            // devices the prediction spans (0: not known)
  double parameters = 0;          // model parameters (0: not known / no model)
  bool probe_calibrated = false;  // a `memwall probe` profile of this very device is applied

  // The value of `dim`, "" when the regime does not have it.
  std::string value(std::string_view dim) const;
  void set(const std::string& dim, const std::string& value);
};

// The dimensions in the order reports list them.
const std::vector<std::string>& dimension_names();

// "Hopper", "Ampere", "Ada Lovelace": the architecture without the die in parentheses.
std::string hardware_family(const Accelerator& a);
// The precision regime: the bit width of the stored weights ("16-bit" for fp16 and bf16, "8-bit",
// "4-bit", "32-bit"): what the kernels' speed depends on, not the format's name.
std::string precision_class(Precision p);
// Device-count bucket: "1", "2-8" (one node), "9-64", "65-512", ">512".
std::string scale_bucket(int64_t devices);

// Sets the hardware dimensions of `r` from the accelerator, the efficiency parameters in use and
// the matmul precision: "hardware" (the family), "datasheet" (the catalog's confidence in the
// accelerator's figures: high, medium, low, none), "ceilings" ("measured" when both the bandwidth
// and the GEMM fraction tables have an entry for this accelerator, by id, architecture or memory
// type; "table median" otherwise; "vendor prior" for a family perf::efficiency_for marks
// uncalibrated); and probe_calibrated when `efficiency` carries a bandwidth
// fraction keyed by this accelerator's id that the built-in parameters do not have (what
// `memwall probe --gpu ID` writes).
void set_hardware(Regime& r, const Accelerator& a, const perf::Efficiency& efficiency,
                  Precision matmul);

}  // namespace memwall::uncertainty
