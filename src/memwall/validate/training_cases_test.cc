#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "memwall/core/document.h"
#include "memwall/train/test_hardware.h"
#include "memwall/validate/training_case.h"

namespace memwall::validate {
namespace {

using namespace memwall::train::testing;

train::TrainSetup setup_for(const TrainingCase& tc) {
  Accelerator gpu = tc.gpu == "nvidia-h100-sxm"        ? h100_sxm()
                    : tc.gpu == "nvidia-a100-40gb-sxm" ? a100_40gb()
                                                       : a100_80gb();
  Node node = tc.node == "hgx-h100" ? hgx_h100() : hgx_a100();
  Fabric fabric = ib(tc.fabric.c_str(), tc.fabric == "ib-ndr" ? 50 : 25);
  return train::make_setup(tc.model, gpu, node, fabric);
}

std::vector<Json> training_cases() {
  const char* dir = std::getenv("MEMWALL_SHARED_DIR");
  std::vector<Json> out;
  if (!dir) return out;
  const Json all = load_document(std::string(dir) + "/validation/dev-cases.json");
  for (const auto& c : all)
    if (c.value("kind", "") == "training") out.push_back(c);
  return out;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t lo = size_t(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

TEST(TrainingCases, DevSetErrorWithinTargets) {
  const auto cases = training_cases();
  if (cases.empty()) GTEST_SKIP() << "MEMWALL_SHARED_DIR not set";
  std::vector<double> errors;
  for (const auto& c : cases) {
    const TrainingCase tc = translate_training_case(c);
    const double predicted = predict_training_metric(tc, setup_for(tc));
    const double measured = c["value"].get<double>();
    const double err = std::fabs(predicted - measured) / measured * 100;
    errors.push_back(err);
    std::printf("%-52s %10.2f %10.2f %+7.1f%%\n", c["id"].get<std::string>().c_str(), measured,
                predicted, (predicted - measured) / measured * 100);
  }
  const double median = percentile(errors, 0.5), p90 = percentile(errors, 0.9);
  std::printf("training cases: %zu, median |error| %.1f %%, p90 %.1f %%\n", errors.size(), median,
              p90);
  EXPECT_EQ(errors.size(), 52u);
  EXPECT_LE(median, 10.0);
  EXPECT_LE(p90, 20.0);
}

}  // namespace
}  // namespace memwall::validate
