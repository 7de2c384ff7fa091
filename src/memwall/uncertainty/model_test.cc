#include "memwall/uncertainty/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "memwall/core/error.h"

namespace memwall::uncertainty {
namespace {

Residual res(const std::string& id, const std::string& source, double log_ratio,
             const std::string& hardware = "Hopper") {
  Residual r;
  r.id = id;
  r.source = source;
  r.regime.kind = "inference";
  r.regime.set("hardware", hardware);
  r.regime.devices = 1;
  r.log_ratio = log_ratio;
  return r;
}

// Ten cases of one source with |r| = 0.01 .. 0.10: the split-conformal 80 % quantile is the
// ceil(11 x 0.8) = 9th smallest, 0.09.
TEST(Uncertainty, HalfWidthIsTheConformalQuantile) {
  std::vector<Residual> rs;
  for (int i = 1; i <= 10; ++i)
    rs.push_back(res("c" + std::to_string(i), "s", (i % 2 ? 1 : -1) * 0.01 * i));
  const Model m = fit(rs);
  ASSERT_TRUE(m.kinds.count("inference"));
  EXPECT_NEAR(m.kinds.at("inference").half_width, 0.09, 1e-12);
  const Interval i = m.interval(rs[0].regime);
  EXPECT_TRUE(i.known);
  EXPECT_NEAR(i.half_width, 0.09, 1e-12);  // the only hardware value: factor 1
  // Symmetric in log space: low x high = value^2, so a time and its rate get the same width.
  EXPECT_NEAR(i.low(20.0) * i.high(20.0), 400.0, 1e-9);
  EXPECT_NEAR(i.high(1.0), std::exp(0.09), 1e-12);
}

// In a regime's factor each source weighs once: nine sources a few % off and one source of 30
// rows 3x off (as the vllm-ascend tutorial is on the 910B). Row by row the 30 rows are 30 of the
// regime's 39 and its 80 % quantile would be theirs (1.07); weighted by source the quantile is the
// ceil(40 x 0.8) / 39 = 82 % point of ten equal sources, the ninth good source's 0.10.
TEST(Uncertainty, OneSourcesManyRowsDoNotSetARegimesWidth) {
  std::vector<Residual> rs;
  for (int s = 0; s < 9; ++s)
    rs.push_back(res("ok" + std::to_string(s), "s" + std::to_string(s), 0.02 + 0.01 * s, "Ascend"));
  for (int i = 0; i < 30; ++i) rs.push_back(res("far" + std::to_string(i), "far", 1.07, "Ascend"));
  for (int i = 1; i <= 20; ++i) rs.push_back(res("h" + std::to_string(i), "h", 0.01 * i, "Hopper"));
  const Model m = fit(rs);
  const KindModel& k = m.kinds.at("inference");
  // The kind's width counts rows: 48th of 59 sorted values, one of the 30 at 1.07.
  EXPECT_NEAR(k.half_width, 1.07, 1e-12);
  // The regime's own quantile 0.10, shrunk toward the kind by 39 / (39 + 40) of its log ratio.
  const double keep = 39.0 / (39.0 + 40.0);
  EXPECT_NEAR(k.factors.at("hardware").at("Ascend").factor, std::exp(keep * std::log(0.10 / 1.07)),
              1e-12);
}

TEST(Uncertainty, WidensOutsideTheCasesAndNarrowsWithAProbeProfile) {
  std::vector<Residual> rs;
  for (int i = 1; i <= 10; ++i) rs.push_back(res("c" + std::to_string(i), "s", 0.01 * i));
  Widening w;
  w.unseen_value = 2;
  w.probe_calibrated = 0.5;
  const Model m = fit(rs, {}, w);
  Regime known = rs[0].regime;
  Regime other = known;
  other.set("hardware", "CDNA 3");
  const Interval a = m.interval(known), b = m.interval(other);
  EXPECT_NEAR(b.half_width, 2 * a.half_width, 1e-12);
  EXPECT_EQ(b.unseen, 1);
  ASSERT_EQ(b.reasons.size(), 1u);
  EXPECT_NE(b.reasons[0].find("CDNA 3"), std::string::npos);
  Regime probed = known;
  probed.probe_calibrated = true;
  EXPECT_NEAR(m.interval(probed).half_width, 0.5 * a.half_width, 1e-12);
  Regime big = known;
  big.devices = 64;  // 64x the largest case (1): two factors of 8
  EXPECT_NEAR(m.interval(big).half_width, a.half_width * w.beyond_scale * w.beyond_scale, 1e-12);
  Regime huge = known;
  huge.devices = int64_t{1} << 50;
  Widening wild = w;
  wild.beyond_scale = 100;
  EXPECT_DOUBLE_EQ(fit(rs, {}, wild).interval(huge).half_width, 5.0);  // capped, not infinite
  Regime training = known;
  training.kind = "training";
  EXPECT_FALSE(m.interval(training).known);
  EXPECT_EQ(m.interval(training).range(5.0), Json::array({5.0, 5.0}));
}

TEST(Uncertainty, RegimeFactorsAreShrunkTowardsOne) {
  std::vector<Residual> rs;
  for (int i = 0; i < 10; ++i) rs.push_back(res("h" + std::to_string(i), "s", 0.05, "Hopper"));
  for (int i = 0; i < 10; ++i) rs.push_back(res("a" + std::to_string(i), "s", 0.20, "Ampere"));
  FitOptions o;
  o.shrinkage_cases = 10;  // each keeps half of its own log ratio
  const Model m = fit(rs, o);
  const auto& k = m.kinds.at("inference");
  const double hopper = k.factors.at("hardware").at("Hopper").factor;
  EXPECT_NEAR(hopper, std::sqrt(0.05 / k.half_width), 1e-9);
  EXPECT_LT(hopper, 1.0);
  // The kind's quantile (the 17th of 20) lies among the Ampere cases: their factor is 1.
  EXPECT_NEAR(k.factors.at("hardware").at("Ampere").factor, 1.0, 1e-12);
}

TEST(Uncertainty, LeaveOneSourceOutUsesOnlyTheOtherSources) {
  std::vector<Residual> rs;
  for (int i = 0; i < 5; ++i) rs.push_back(res("a" + std::to_string(i), "A", 0.02));
  for (int i = 0; i < 5; ++i) rs.push_back(res("b" + std::to_string(i), "B", 0.30));
  const auto held = leave_one_source_out(rs);
  ASSERT_EQ(held.size(), 10u);
  // One source left in the fit: no source to measure a new-source scale on (scale 1).
  EXPECT_TRUE(held[0].inside);   // A judged by B's width 0.30
  EXPECT_FALSE(held[9].inside);  // B judged by A's width 0.02
  EXPECT_NEAR(held[9].interval.half_width, 0.02, 1e-12);
}

// Two sources with the same errors: a held-out source scores |r| / h = 1 or less, so the
// new-source scale is at most 1; a source twice as far off as the other raises it.
TEST(Uncertainty, NewSourceScaleMeasuresHowFarANewSourceFalls) {
  std::vector<Residual> rs;
  for (int i = 1; i <= 5; ++i) rs.push_back(res("a" + std::to_string(i), "A", 0.02 * i));
  for (int i = 1; i <= 5; ++i) rs.push_back(res("b" + std::to_string(i), "B", 0.02 * i));
  EXPECT_LE(fit(rs).new_source_scale, 1.0);
  for (int i = 1; i <= 5; ++i) rs.push_back(res("c" + std::to_string(i), "C", 0.06 * i));
  EXPECT_GT(fit(rs).new_source_scale, 1.5);
}

// A kind with four sources, one of them far off the others, gets a scale of its own; a kind of
// four sources that agree keeps a smaller one; a kind of two sources takes the pooled scale.
TEST(Uncertainty, EachKindWithEnoughSourcesHasItsOwnNewSourceScale) {
  std::vector<Residual> rs;
  auto add = [&rs](const std::string& kind, const std::string& source, double step) {
    for (int i = 1; i <= 5; ++i) {
      Residual r = res(source + std::to_string(i), source, step * i);
      r.regime.kind = kind;
      rs.push_back(r);
    }
  };
  for (const char* s : {"A", "B", "C"}) add("inference", s, 0.02);
  add("inference", "D", 0.08);
  for (const char* s : {"E", "F", "G", "H"}) add("training", s, 0.02);
  add("memory", "I", 0.02);
  add("memory", "J", 0.02);
  const Model m = fit(rs);
  const double inference = m.kinds.at("inference").new_source_scale;
  const double training = m.kinds.at("training").new_source_scale;
  EXPECT_GT(inference, 1.5 * training);
  EXPECT_LE(training, 1.0);
  EXPECT_EQ(m.kinds.at("memory").new_source_scale, 0.0);  // the pooled scale applies
  Regime memory;
  memory.kind = "memory";
  memory.set("hardware", "Hopper");
  EXPECT_NEAR(m.interval(memory).half_width,
              m.kinds.at("memory").half_width * m.new_source_scale, 1e-12);
}

TEST(Uncertainty, OtherLevelsScaleByNormalQuantiles) {
  Interval i;
  i.known = true;
  i.half_width = 0.1;
  i.level = 0.8;
  EXPECT_NEAR(scale_to_level(i, 0.95).half_width, 0.1 * 1.959964 / 1.281552, 1e-5);
  EXPECT_NEAR(scale_to_level(i, 0.8).half_width, 0.1, 1e-12);
}

TEST(Uncertainty, JsonRoundTripAndBadInput) {
  std::vector<Residual> rs;
  for (int i = 1; i <= 10; ++i) rs.push_back(res("c" + std::to_string(i), "s", 0.01 * i));
  const Model m = fit(rs);
  const Model back = model_from_json(to_json(m), "test");
  EXPECT_NEAR(back.interval(rs[0].regime).half_width, m.interval(rs[0].regime).half_width, 1e-12);
  Json bad = to_json(m);
  bad["uncertainty"]["level"] = 2;
  EXPECT_THROW(model_from_json(bad, "test"), InputError);
  EXPECT_THROW(model_from_json(Json::array(), "test"), InputError);
}

TEST(Uncertainty, SourceKeys) {
  EXPECT_EQ(source_key("NVIDIA/TensorRT-LLM docs/source/performance.md (v0.6.1 tables)"),
            "NVIDIA/TensorRT-LLM");
  EXPECT_EQ(source_key("Kwon et al. 2023 (vLLM, SOSP'23), Table 1"), "Kwon et al. 2023");
  EXPECT_EQ(source_key("Narayanan et al. 2021, 'Efficient Large-Scale'"), "Narayanan et al. 2021");
  EXPECT_EQ(source_key(""), "unknown");
}

TEST(Uncertainty, PrecisionClassIsTheElementWidth) {
  EXPECT_EQ(precision_class(Precision::fp4), "4-bit");
  EXPECT_EQ(precision_class(Precision::int4), "4-bit");
  EXPECT_EQ(precision_class(Precision::fp8_e4m3), "8-bit");
  EXPECT_EQ(precision_class(Precision::bf16), "16-bit");
  EXPECT_EQ(precision_class(Precision::fp32), "32-bit");
}

TEST(Uncertainty, RangeText) {
  EXPECT_EQ(range_text(Json::array({0.0198, 0.0246}), 1e3, 1), "(19.8-24.6)");
  EXPECT_EQ(range_text(Json("x"), 1, 1), "");
}

// After `memwall calibrate`, an answer on the fitted stack and accelerator carries the prediction
// interval of its records' scatter: t(dof) x s x sqrt(1 + 1/n), dof = records - parameters.
// Elsewhere, or with no scatter measured, the built-in interval stays and says why.
TEST(CalibratedInterval, ComesFromTheRecordsScatterOnTheFittedAcceleratorOnly) {
  Interval builtin;
  builtin.known = true;
  builtin.half_width = 0.15;
  perf::EngineProfile p;
  p.name = "vllm";
  p.version = "0.8";
  EXPECT_DOUBLE_EQ(calibrated_interval(builtin, &p, "nvidia-h100-sxm").half_width, 0.15);
  EXPECT_DOUBLE_EQ(calibrated_interval(builtin, nullptr, "nvidia-h100-sxm").half_width, 0.15);
  p.calibrated_spread = perf::EngineProfile::CalibratedSpread{12, 2, 0.05, {"nvidia-h100-sxm"}};
  const Interval c = calibrated_interval(builtin, &p, "nvidia-h100-sxm");
  EXPECT_TRUE(c.calibrated);
  EXPECT_NEAR(c.half_width, 1.3722 * 0.05 * std::sqrt(1 + 1.0 / 12), 1e-12);  // t(10)
  EXPECT_NE(interval_note(c).find("scatter of your calibration records"), std::string::npos);
  // Few records: a wide t, wider than the built-in interval (honest about two points).
  p.calibrated_spread = perf::EngineProfile::CalibratedSpread{3, 2, 0.05, {"nvidia-h100-sxm"}};
  EXPECT_NEAR(calibrated_interval(builtin, &p, "nvidia-h100-sxm").half_width,
              3.0777 * 0.05 * std::sqrt(1 + 1.0 / 3), 1e-12);
  // As many records as parameters: no scatter measured.
  p.calibrated_spread = perf::EngineProfile::CalibratedSpread{2, 2, 0.0, {"nvidia-h100-sxm"}};
  const Interval none = calibrated_interval(builtin, &p, "nvidia-h100-sxm");
  EXPECT_FALSE(none.calibrated);
  EXPECT_DOUBLE_EQ(none.half_width, 0.15);
  ASSERT_FALSE(none.reasons.empty());
  EXPECT_NE(none.reasons.back().find("no scatter measured"), std::string::npos);
  // Another accelerator than the records ran on.
  p.calibrated_spread = perf::EngineProfile::CalibratedSpread{12, 2, 0.05, {"nvidia-h100-sxm"}};
  const Interval other = calibrated_interval(builtin, &p, "nvidia-a100-80gb-sxm");
  EXPECT_FALSE(other.calibrated);
  EXPECT_DOUBLE_EQ(other.half_width, 0.15);
  EXPECT_NE(other.reasons.back().find("not nvidia-a100-80gb-sxm"), std::string::npos);
}

// The spread is read from a profile's fitted_on group of the engine it calibrates.
TEST(CalibratedInterval, TheProfileCarriesItsSpread) {
  const Json doc = {{"engines", {{"vllm@0.8", {{"memory_stream_fraction", 0.8}}}}},
                    {"fitted_on",
                     {{"groups",
                       {{"vllm@0.8",
                         {{"engine", "vLLM 0.8"},
                          {"accelerators", {"nvidia-h100-sxm"}},
                          {"records", 9},
                          {"parameters", {{"memory_stream_fraction", Json::object()}}},
                          {"residual_sd_log", 0.04}}}}}}}};
  const perf::Efficiency e = perf::apply_calibration(perf::default_efficiency(), doc, "p.json");
  const perf::EngineProfile* vllm08 = nullptr;
  for (const auto& p : e.engines)
    if (p.key() == "vllm@0.8") vllm08 = &p;
  ASSERT_NE(vllm08, nullptr);
  ASSERT_TRUE(vllm08->calibrated_spread.has_value());
  EXPECT_EQ(vllm08->calibrated_spread->records, 9);
  EXPECT_EQ(vllm08->calibrated_spread->fitted_parameters, 1);
  EXPECT_DOUBLE_EQ(vllm08->calibrated_spread->residual_sd_log, 0.04);
  Json bad = doc;
  bad["fitted_on"]["groups"]["vllm@0.8"]["residual_sd_log"] = -1;
  EXPECT_THROW(perf::apply_calibration(perf::default_efficiency(), bad, "p.json"), InputError);
}

// Groups drawn from the model the fit assumes (Smyth 2004: sigma_g^2 = s0^2 d0 / chi^2(d0), each
// group's errors normal with that sigma) give back s0 and d0; the likelihood is flat in d0, so
// the bound on it is loose; a wrong s0 (e.g. the pooled rms, which heavy-scatter groups inflate)
// would fail the tighter bound.
TEST(CalibratedScatter, FitRecoversTheScatterOfGroupsDrawnFromItsModel) {
  std::mt19937 rng(12345);
  const double s0 = 0.08, d0 = 4;
  std::chi_squared_distribution<double> chi(d0);
  std::normal_distribution<double> unit(0, 1);
  std::vector<std::vector<double>> groups;
  for (int g = 0; g < 400; ++g) {
    const double sigma = s0 * std::sqrt(d0 / chi(rng));
    std::vector<double> e;
    for (int i = 0; i < 6; ++i) e.push_back(sigma * unit(rng));
    groups.push_back(e);
  }
  const CalibratedScatter c = fit_calibrated_scatter(groups, 2);
  ASSERT_TRUE(c.known());
  EXPECT_EQ(c.groups, 400);
  EXPECT_EQ(c.cases, 2400);
  EXPECT_EQ(c.calibrated_on, 2);
  EXPECT_NEAR(c.sd_log, s0, 0.1 * s0);
  EXPECT_GT(c.prior_dof, d0 / 2);
  EXPECT_LT(c.prior_dof, d0 * 2);
  // Groups that all scatter alike are worth many records (d0 large).
  std::vector<std::vector<double>> alike;
  for (int g = 0; g < 200; ++g) {
    std::vector<double> e;
    for (int i = 0; i < 6; ++i) e.push_back(0.05 * unit(rng));
    alike.push_back(e);
  }
  EXPECT_GT(fit_calibrated_scatter(alike, 2).prior_dof, 30);
  // One group (or none) measures no between-group spread.
  EXPECT_FALSE(fit_calibrated_scatter({{0.1, -0.1}}, 2).known());
  EXPECT_FALSE(fit_calibrated_scatter({{}, {}}, 2).known());
}

TEST(CalibratedScatter, StudentTInterpolatesBetweenTableRows) {
  EXPECT_DOUBLE_EQ(t90(1), 3.0777);
  EXPECT_DOUBLE_EQ(t90(10), 1.3722);
  EXPECT_NEAR(t90(1.5), (3.0777 + 1.8856) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(t90(0.2), 3.0777);  // below 1: t(1)
  EXPECT_NEAR(t90(1e9), 1.2816, 1e-6);
}

// A user's two records (one parameter fitted) are moderated with the pooled scatter: the interval
// is t(d0 + dof) x s~ x sqrt(1 + 1/n); with no scatter of their own (records = parameters) the
// pooled scatter alone gives it; it is never narrower than the records' own sd.
TEST(CalibratedScatter, ModeratesTheRecordsScatterWithThePooledOne) {
  CalibratedScatter pooled;
  pooled.sd_log = 0.08;
  pooled.prior_dof = 2.3;
  const Interval two = calibrated_interval(2, 1, 0.02, &pooled, "vllm@0.8", "nvidia-h100-sxm");
  ASSERT_TRUE(two.known);
  EXPECT_TRUE(two.calibrated);
  const double s = std::sqrt((2.3 * 0.08 * 0.08 + 1 * 0.02 * 0.02) / 3.3);
  EXPECT_NEAR(two.half_width, t90(3.3) * s * std::sqrt(1.5), 1e-12);
  ASSERT_FALSE(two.reasons.empty());
  EXPECT_NE(two.reasons.back().find("worth 2.3 records"), std::string::npos);
  const Interval none = calibrated_interval(3, 3, 0.0, &pooled, "vllm@0.8", "nvidia-h100-sxm");
  ASSERT_TRUE(none.known);
  EXPECT_NEAR(none.half_width, t90(2.3) * 0.08 * std::sqrt(1 + 1.0 / 3), 1e-12);
  // Records far noisier than a pooled scatter worth 100 records: the floor at their own sd.
  CalibratedScatter tight;
  tight.sd_log = 0.01;
  tight.prior_dof = 100;
  EXPECT_DOUBLE_EQ(calibrated_interval(2, 1, 0.5, &tight, "x", "y").half_width, 0.5);
  // Without a pooled scatter: the records' t interval, and nothing with no dof.
  EXPECT_NEAR(calibrated_interval(12, 2, 0.05, nullptr, "x", "y").half_width,
              1.3722 * 0.05 * std::sqrt(1 + 1.0 / 12), 1e-12);
  EXPECT_FALSE(calibrated_interval(2, 2, 0.0, nullptr, "x", "y").known);
}

TEST(CalibratedScatter, TravelsThroughTheModelFileAndIsCheckedThere) {
  Model m;
  m.calibrated["inference"] = CalibratedScatter{0.081, 2.3, 21, 118, 2};
  const Model back = model_from_json(to_json(m), "u.json");
  ASSERT_NE(back.calibrated_scatter("inference"), nullptr);
  EXPECT_DOUBLE_EQ(back.calibrated_scatter("inference")->sd_log, 0.081);
  EXPECT_DOUBLE_EQ(back.calibrated_scatter("inference")->prior_dof, 2.3);
  EXPECT_EQ(back.calibrated_scatter("inference")->groups, 21);
  EXPECT_EQ(back.calibrated_scatter("training"), nullptr);
  Json bad = to_json(m);
  bad["uncertainty"]["calibrated"]["inference"]["sd_log"] = -1;
  try {
    model_from_json(bad, "u.json");
    FAIL() << "a negative sd was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrated.inference.sd_log"), std::string::npos);
  }
  // The built-in model carries both kinds (scripts/validate.sh refits them).
  EXPECT_NE(builtin_model().calibrated_scatter("inference"), nullptr);
  EXPECT_NE(builtin_model().calibrated_scatter("training"), nullptr);
}

}  // namespace
}  // namespace memwall::uncertainty
