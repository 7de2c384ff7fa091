#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

Json minimal() {
  return Json{{"id", "test-gpu"},
              {"memory_gb", 80},
              {"mem_bw_gbps", 3350},
              {"tflops", {{"bf16", 989.4}, {"fp8", nullptr}, {"int8", 1978.9}}},
              {"unsupported_precisions", {"fp4"}},
              {"tdp_w", 700},
              {"scaleup_bw_per_direction_gbps_derived", 450.0},
              {"host_bandwidth_per_direction_gbps", 63.0}};
}

TEST(AcceleratorIo, ConvertsDatasheetUnitsToSi) {
  const Accelerator a = accelerator_from_json(minimal(), "t");
  EXPECT_EQ(a.id, "test-gpu");
  EXPECT_DOUBLE_EQ(a.memory->value(), 80e9);  // no memory_unit: decimal GB
  EXPECT_DOUBLE_EQ(a.memory_bandwidth->value(), 3350e9);
  EXPECT_DOUBLE_EQ(a.peak(Precision::bf16)->value(), 989.4e12);
  EXPECT_DOUBLE_EQ(a.peak(Precision::int8)->value(), 1978.9e12);
  EXPECT_FALSE(a.peak(Precision::fp8_e4m3).has_value());  // null stays unknown
  EXPECT_FALSE(a.peak(Precision::fp4).has_value());       // unsupported
  EXPECT_FALSE(a.supports(Precision::fp4));
  EXPECT_DOUBLE_EQ(a.tdp->value(), 700);
  EXPECT_DOUBLE_EQ(a.scaleup_bandwidth_per_direction->value(), 450e9);
  EXPECT_DOUBLE_EQ(a.host_bandwidth_per_direction->value(), 63e9);
  EXPECT_FALSE(a.price.has_value());
  EXPECT_FALSE(a.compute_units.has_value());
}

TEST(AcceleratorIo, MemoryFigureIsReadInTheUnitTheVendorMeans) {
  Json j = minimal();
  j["memory_unit"] = "GiB";
  j["memory_unit_basis"] = "nvidia-smi: 81559 MiB";
  const Accelerator a = accelerator_from_json(j, "t");
  EXPECT_DOUBLE_EQ(a.memory->value(), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*a.memory_datasheet_figure(), 80.0);
  const Json back = accelerator_to_json(a);  // the datasheet figure and its unit, not bytes
  EXPECT_EQ(back["memory_gb"], 80.0);
  EXPECT_EQ(back["memory_unit"], "GiB");
  EXPECT_EQ(back["memory_unit_basis"], "nvidia-smi: 81559 MiB");
  EXPECT_DOUBLE_EQ(accelerator_from_json(back, "t").memory->value(), a.memory->value());
  j["memory_unit"] = "GB";
  EXPECT_DOUBLE_EQ(accelerator_from_json(j, "t").memory->value(), 80e9);
  for (const Json& bad : {Json("gib"), Json("MiB"), Json(""), Json(2)}) {
    j["memory_unit"] = bad;
    EXPECT_THROW(accelerator_from_json(j, "t"), InputError) << bad.dump();
  }
}

TEST(AcceleratorIo, RoundTripsThroughJson) {
  Json j = minimal();
  j["aliases"] = {"tg"};
  j["price_usd"] = 27500;
  j["price_usd_range"] = {25000, 30000};
  j["compute_units"] = 132;
  j["sources"] = {"a datasheet"};
  j["risk"] = "a driver licence that excludes datacenter deployment (its section)";
  const Accelerator a = accelerator_from_json(j, "t");
  const Accelerator b = accelerator_from_json(accelerator_to_json(a), "round trip");
  EXPECT_EQ(accelerator_to_json(a), accelerator_to_json(b));
  EXPECT_EQ(accelerator_to_json(a)["mem_bw_gbps"], Json(3350.0));
  EXPECT_EQ(accelerator_to_json(a)["tflops"]["bf16"], Json(989.4));
  EXPECT_TRUE(accelerator_to_json(a)["tflops"]["fp8"].is_null());
  EXPECT_DOUBLE_EQ(b.price_low->value(), 25000);
  EXPECT_EQ(*b.compute_units, 132);
  EXPECT_EQ(b.risk, "a driver licence that excludes datacenter deployment (its section)");
  // An entry without a risk writes none.
  EXPECT_FALSE(accelerator_to_json(accelerator_from_json(minimal(), "t")).contains("risk"));
}

TEST(AcceleratorIo, ARiskThatIsNotTextIsRefusedByName) {
  for (const Json& bad : {Json(1), Json::array({"licence"}), Json::object(), Json(true)}) {
    Json j = minimal();
    j["risk"] = bad;
    try {
      accelerator_from_json(j, "user.yaml: accelerators[0]");
      FAIL() << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("user.yaml: accelerators[0] (test-gpu).risk"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a string"), std::string::npos) << e.what();
    }
  }
}

TEST(AcceleratorIo, RejectsBadNumbers) {
  for (const Json& bad : {Json(-80), Json(0), Json(1e300), Json("eighty"), Json::array()}) {
    Json j = minimal();
    j["memory_gb"] = bad;
    EXPECT_THROW(accelerator_from_json(j, "t"), InputError) << bad.dump();
  }
  Json j = minimal();
  j["tflops"]["bf16"] = -1;
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
  j = minimal();
  j["compute_units"] = 1.5;
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
  j = minimal();
  j["year"] = 1066;
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
  j = minimal();
  j["price_usd_range"] = {30000, 25000};
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
}

TEST(AcceleratorIo, RejectsUnknownFieldsAndPrecisionsNamingThem) {
  Json j = minimal();
  j["memory_gbs"] = 80;
  try {
    accelerator_from_json(j, "user.yaml: accelerators[0]");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_gbs"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("user.yaml"), std::string::npos);
  }
  j = minimal();
  j["tflops"]["fp64"] = 34;
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
  j = minimal();
  j["unsupported_precisions"] = {"fp6"};
  EXPECT_THROW(accelerator_from_json(j, "t"), InputError);
  EXPECT_THROW(accelerator_from_json(Json::array(), "t"), InputError);
  EXPECT_THROW(accelerator_from_json(Json{{"memory_gb", 80}}, "t"), InputError);  // no id
}

}  // namespace
}  // namespace memwall
