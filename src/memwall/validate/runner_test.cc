#include "memwall/validate/runner.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"

namespace memwall::validate {
namespace {

TEST(Runner, MedianAndP90) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(percentile90(v), 9.0);
  EXPECT_DOUBLE_EQ(percentile90({}), 0.0);
}

TEST(Runner, RejectsNonArrays) {
  EXPECT_THROW(run_cases(Json::object(), Catalog::builtin()), InputError);
}

// The bar over the dev inference cases: median |error| <= 15 %, p90 <= 35 %.
TEST(Runner, DevInferenceCasesMeetTheAccuracyBar) {
  const Report r =
      run_file(memwall::test::source_dir() + "/validation/dev-cases.json", Catalog::builtin(), "inference");
  ASSERT_EQ(r.kinds.size(), 1u);
  EXPECT_GE(r.kinds[0].predicted, 30);
  EXPECT_LE(r.kinds[0].median_abs_pct_error, 15.0);
  EXPECT_LE(r.kinds[0].p90_abs_pct_error, 35.0);
}

TEST(Runner, DevMicrobenchCasesAreClose) {
  const Report r =
      run_file(memwall::test::source_dir() + "/validation/dev-cases.json", Catalog::builtin(), "microbench");
  int stream_and_mamf = 0;
  for (const auto& c : r.cases)
    if (c.predicted && (c.id.find("stream") != std::string::npos ||
                        c.id.find("mamf") != std::string::npos)) {
      ++stream_and_mamf;
      EXPECT_LT(c.abs_pct_error(), 20.0) << c.id;
    }
  EXPECT_GE(stream_and_mamf, 12);
}

}  // namespace
}  // namespace memwall::validate
