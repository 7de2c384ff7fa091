#include "memwall/validate/breakdown.h"

#include <gtest/gtest.h>

#include "memwall/core/test_paths.h"

#include <cmath>

namespace memwall::validate {
namespace {

const Report& dev_report() {
  static const Report r =
      run_file(memwall::test::source_dir() + "/validation/dev-cases.json", Catalog::builtin());
  return r;
}

TEST(Breakdown, GroupsBySourceAndRegimeWithSignedErrors) {
  const Report& r = dev_report();
  const GroupSummary* inference = whole_kind(r, "inference");
  ASSERT_NE(inference, nullptr);
  EXPECT_EQ(inference->predicted,
            r.kinds[0].kind == "inference" ? r.kinds[0].predicted : inference->predicted);
  bool source = false, bound = false, hardware = false;
  for (const auto& g : r.groups) {
    source |= g.kind == "training" && g.dimension == "source";
    bound |= g.kind == "inference" && g.dimension == "bound";
    hardware |= g.kind == "training" && g.dimension == "hardware";
    EXPECT_LE(std::fabs(g.median_signed_pct_error), g.p90_abs_pct_error + 1e-9) << g.value;
  }
  EXPECT_TRUE(source && bound && hardware);
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("## By source and regime"), std::string::npos);
  EXPECT_NE(md.find("median signed error"), std::string::npos);
}

// The drift check of data/uncertainty.json: the leave-one-source-out coverage of the 80 %
// intervals on the current residuals stays in a band around 80 % (the bar is 75-85 %;
// this band is wider so a small physics change passes and a broken model does not), and the
// built-in half-widths are within 35 % of a refit. Refit with scripts/validate.sh when it fails.
TEST(Breakdown, BuiltinUncertaintyModelStillFitsTheDevCases) {
  const Report& r = dev_report();
  // Over each kind with its case groups ("training/frontier" ...), as the model is fitted.
  for (const std::string kind : {"inference", "training"}) {
    int inside = 0, held = 0;
    for (const auto& c : r.cases) {
      if (c.kind != kind || !c.held_out || !c.held_out->known) continue;
      ++held;
      if (std::fabs(std::log(*c.predicted / c.measured)) <= c.held_out->half_width) ++inside;
    }
    ASSERT_GT(held, 20) << kind;
    const double coverage = double(inside) / held;
    EXPECT_GE(coverage, 0.70) << kind;
    EXPECT_LE(coverage, 0.92) << kind;
    const GroupSummary* g = whole_kind(r, kind);
    ASSERT_NE(g, nullptr) << kind;
    EXPECT_GT(*g->median_width_pct, 5.0) << kind;
  }
  const auto& builtin = uncertainty::builtin_model();
  const auto refit = uncertainty::fit(residuals(r));
  for (const char* kind : {"inference", "training"}) {
    ASSERT_TRUE(builtin.kinds.count(kind)) << "data/uncertainty.json lacks " << kind;
    const double a = builtin.kinds.at(kind).half_width, b = refit.kinds.at(kind).half_width;
    EXPECT_NEAR(std::log(a / b), 0.0, std::log(1.35)) << kind << ": refit with scripts/validate.sh";
  }
  EXPECT_NEAR(std::log(builtin.new_source_scale / refit.new_source_scale), 0.0, std::log(1.35));
}

TEST(Breakdown, FitUncertaintyCarriesProvenanceAndCoverage) {
  const Json j = fit_uncertainty(dev_report(), Json{{"command", "test"}});
  const Json& p = j["uncertainty"]["provenance"];
  EXPECT_EQ(p["command"], "test");
  EXPECT_TRUE(p["leave_one_source_out_coverage"].contains("inference"));
  EXPECT_FALSE(p["leave_one_source_out_coverage"].contains("memory"));  // one source: no LOSO
  EXPECT_NO_THROW(uncertainty::model_from_json(j, "fit"));
}

}  // namespace
}  // namespace memwall::validate
