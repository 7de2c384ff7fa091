#include "memwall/catalog/catalog.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"
#include "memwall/hw/hw_io.h"

namespace memwall {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(Catalog, BuiltinHasEveryReferenceAcceleratorWithItsValues) {
  const Catalog& c = Catalog::builtin();
  // The 46 reference rows, the three the validation cases name (L40, RTX 6000 Ada, GH200) and the
  // domestic and other accelerators a buyer shortlists (Kunlun P800, MTT S4000, MetaX C500, Biren
  // BR100/BR104, Enflame S60) and the domestic PCIe cards (Atlas 300I Duo per chip, Atlas 300I A2,
  // Kunlun R200, R200-8F and RG800, MLU370-X4, Iluvatar Tiangai 100).
  ASSERT_EQ(c.accelerators().size(), 62u);
  const Json ref = load_document(memwall::test::source_dir() + "/data/reference/accelerators.json");
  ASSERT_EQ(ref.size(), 46u);
  for (const auto& row : ref) {
    const std::string id = row["id"];
    const Accelerator* a = c.find_accelerator(id);
    ASSERT_NE(a, nullptr) << id;
    // A reference figure is kept; an unknown one may be filled only with its own source and
    // confidence (figure_sources), never silently.
    auto same_or_sourced = [a](const std::string& key) {
      return [a, key](const Json& v, const auto& q, double unit) {
        if (v.is_null()) return !q.has_value() || a->figure_sources.count(key) > 0;
        return q.has_value() &&
               std::abs(q->value() - v.get<double>() * unit) <= 1e-9 * v.get<double>() * unit;
      };
    };
    const auto same = same_or_sourced("");
    EXPECT_EQ(a->id, id);
    // The reference figure is kept; its bytes follow the unit the vendor means (GiB for HBM/GDDR).
    EXPECT_TRUE(same_or_sourced("memory_gb")(row["memory_gb"], a->memory, memory_unit_bytes(a->memory_unit))) << id;
    if (a->memory) {
      EXPECT_EQ(a->memory_unit, "GiB") << id;
    }
    EXPECT_TRUE(same_or_sourced("mem_bw_gbps")(row["mem_bw_gbps"], a->memory_bandwidth, 1e9)) << id;
    EXPECT_TRUE(same_or_sourced("tdp_w")(row["tdp_w"], a->tdp, 1.0)) << id;
    EXPECT_TRUE(same(row["price_usd"], a->price, 1.0)) << id;
    EXPECT_TRUE(
        same(row["scaleup_bw_per_direction_gbps_derived"], a->scaleup_bandwidth_per_direction, 1e9))
        << id;
    for (const auto& [key, v] : row["tflops"].items()) {
      ASSERT_TRUE(a->dense_peak.count(key)) << id << " " << key;
      EXPECT_TRUE(same_or_sourced("tflops." + key)(v, a->dense_peak.at(key), 1e12)) << id << " " << key;
    }
    EXPECT_EQ(a->unsupported_precisions,
              row["unsupported_precisions"].get<std::vector<std::string>>());
    EXPECT_EQ(a->confidence, row["confidence"].get<std::string>());
    for (const auto& s : row["sources"]) {
      EXPECT_NE(std::find(a->sources.begin(), a->sources.end(), s.get<std::string>()),
                a->sources.end())
          << id;
    }
  }
}

// GeForce tensor cores run FP16-accumulate at twice the FP32-accumulate rate; vLLM-class engines
// accumulate in fp32, so GEMMs are timed at the FP32-accumulate peaks (Ada whitepaper v2.1
// Appendix A; RTX Blackwell whitepaper Table 3; GA102 whitepaper), and BF16 is a real path on the
// 3090 and 5090 (seed audit 3, D2/D3).
TEST(Catalog, GeForceGemmsAreTimedAtTheirFp32AccumulateRates) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& rtx4090 = c.accelerator("rtx-4090");
  EXPECT_DOUBLE_EQ(rtx4090.peak(Precision::fp16)->value(), 165.2e12);
  EXPECT_DOUBLE_EQ(rtx4090.peak(Precision::bf16)->value(), 165.2e12);
  EXPECT_DOUBLE_EQ(rtx4090.peak(Precision::fp8_e4m3)->value(), 330.3e12);
  EXPECT_DOUBLE_EQ(rtx4090.dense_peak.at("fp8")->value(), 660.6e12);  // the FP16-accumulate figure
  EXPECT_EQ(rtx4090.peak_accumulate.at("fp8"), "fp16");
  EXPECT_EQ(rtx4090.peak_accumulate.at("bf16"), "fp32");
  const Accelerator& rtx5090 = c.accelerator("rtx-5090");
  EXPECT_DOUBLE_EQ(rtx5090.peak(Precision::bf16)->value(), 209.5e12);
  EXPECT_DOUBLE_EQ(rtx5090.peak(Precision::fp16)->value(), 209.5e12);
  EXPECT_DOUBLE_EQ(rtx5090.peak(Precision::fp8_e4m3)->value(), 419e12);
  const Accelerator& rtx3090 = c.accelerator("rtx-3090");
  EXPECT_DOUBLE_EQ(rtx3090.peak(Precision::bf16)->value(), 71.2e12);
  EXPECT_DOUBLE_EQ(rtx3090.peak(Precision::fp16)->value(), 71.2e12);
  // An FP32-accumulate rate needs an FP16-accumulate figure beside it, never above it.
  Json bad = Json::parse(R"({"id": "x", "tflops": {"fp16": 100},
                             "tflops_accumulate": {"fp16": "fp16"},
                             "tflops_fp32_accumulate": {"fp16": 200}})");
  EXPECT_THROW(accelerator_from_json(bad, "test"), InputError);
  bad["tflops_accumulate"]["fp16"] = "fp32";
  bad["tflops_fp32_accumulate"]["fp16"] = 50;
  EXPECT_THROW(accelerator_from_json(bad, "test"), InputError);
}

TEST(Catalog, H100DatasheetValues) {
  const Accelerator& h100 = Catalog::builtin().accelerator("h100");
  EXPECT_EQ(h100.id, "nvidia-h100-sxm");
  EXPECT_DOUBLE_EQ(h100.peak(Precision::bf16)->value(), 989.4e12);  // dense, sparsity halved
  EXPECT_DOUBLE_EQ(h100.peak(Precision::fp8_e4m3)->value(), 1978.9e12);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth->value(), 3350e9);
  // "80 GB" of HBM3 is 80 GiB: nvidia-smi shows 81559 MiB, more than 80e9 bytes could hold.
  EXPECT_DOUBLE_EQ(h100.memory->value(), 80.0 * kGiB);
  EXPECT_EQ(h100.memory_unit, "GiB");
  EXPECT_DOUBLE_EQ(*h100.memory_datasheet_figure(), 80.0);
  EXPECT_NE(h100.memory_unit_basis.find("81559 MiB"), std::string::npos);
  // ...and that total, below the 80 GiB, is what software can allocate from.
  EXPECT_DOUBLE_EQ(h100.memory_reported->value(), 81559.0 * kMiB);
  EXPECT_DOUBLE_EQ(h100.runtime_memory()->value(), 81559.0 * kMiB);
  EXPECT_DOUBLE_EQ(h100.scaleup_bandwidth_per_direction->value(), 450e9);  // 900 GB/s bidir / 2
  EXPECT_DOUBLE_EQ(h100.host_bandwidth_per_direction->value(), 63e9);      // PCIe Gen5 x16
  EXPECT_EQ(*h100.compute_units, 132);
  EXPECT_DOUBLE_EQ(h100.tdp->value(), 700);
  EXPECT_GE(h100.sources.size(), 3u);
}

// Accelerators added beyond the reference table, checked against their datasheets.
TEST(Catalog, L40DatasheetValues) {
  const Accelerator& l40 = Catalog::builtin().accelerator("l40");
  EXPECT_EQ(l40.id, "nvidia-l40");
  EXPECT_DOUBLE_EQ(l40.memory_bandwidth->value(), 864e9);
  EXPECT_DOUBLE_EQ(l40.peak(Precision::bf16)->value(), 181.05e12);  // 362.1 with sparsity
  EXPECT_DOUBLE_EQ(l40.peak(Precision::fp8_e4m3)->value(), 362e12);  // half the L40S's 733
  EXPECT_DOUBLE_EQ(l40.peak(Precision::int8)->value(), 362e12);
  EXPECT_DOUBLE_EQ(l40.tdp->value(), 300);
  EXPECT_EQ(*l40.compute_units, 142);
  EXPECT_DOUBLE_EQ(l40.host_bandwidth_per_direction->value(), 31.5e9);  // PCIe Gen4 x16
  EXPECT_FALSE(l40.scaleup_bandwidth_per_direction.has_value());        // no NVLink
}

TEST(Catalog, Rtx6000AdaDatasheetValues) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& ada = c.accelerator("rtx-6000-ada");
  EXPECT_EQ(ada.id, "nvidia-rtx-6000-ada");
  EXPECT_DOUBLE_EQ(ada.memory_bandwidth->value(), 960e9);
  EXPECT_DOUBLE_EQ(ada.peak(Precision::fp8_e4m3)->value(), 728.5e12);  // 1,457.0 sparse / 2
  EXPECT_DOUBLE_EQ(ada.peak(Precision::bf16)->value(), 364.25e12);
  EXPECT_DOUBLE_EQ(ada.tdp->value(), 300);
  EXPECT_EQ(*ada.compute_units, 142);
  EXPECT_EQ(c.find_accelerator("rtx-6000"), nullptr);  // the Turing Quadro RTX 6000 is another card
}

TEST(Catalog, Gh200DatasheetValues) {
  const Accelerator& gh = Catalog::builtin().accelerator("gh200");
  EXPECT_EQ(gh.id, "nvidia-gh200-144gb");
  EXPECT_DOUBLE_EQ(gh.memory_bandwidth->value(), 4900e9);  // HBM3e variant (HBM3: 4 TB/s)
  EXPECT_DOUBLE_EQ(gh.peak(Precision::bf16)->value(), 989.4e12);
  EXPECT_DOUBLE_EQ(gh.peak(Precision::fp8_e4m3)->value(), 1978.9e12);
  EXPECT_DOUBLE_EQ(gh.scaleup_bandwidth_per_direction->value(), 450e9);
  EXPECT_EQ(*gh.compute_units, 132);
  EXPECT_EQ(*gh.year, 2024);
  EXPECT_FALSE(gh.price.has_value());  // no sourced price
}

TEST(Catalog, HostLinkFollowsPcieGeneration) {
  const Catalog& c = Catalog::builtin();
  EXPECT_DOUBLE_EQ(c.accelerator("v100").host_bandwidth_per_direction->value(), 15.75e9);
  EXPECT_DOUBLE_EQ(c.accelerator("4090").host_bandwidth_per_direction->value(), 31.5e9);
  EXPECT_DOUBLE_EQ(c.accelerator("mi300x").host_bandwidth_per_direction->value(), 63e9);
  EXPECT_FALSE(c.accelerator("h20").host_bandwidth_per_direction.has_value());    // not stated
  EXPECT_FALSE(c.accelerator("gb200").host_bandwidth_per_direction.has_value());  // NVLink-C2C
}

TEST(Catalog, UnknownValuesStayUnknown) {
  const Catalog& c = Catalog::builtin();
  // The S60's manual gives memory, bandwidth and power but no per-precision peak.
  const Accelerator& s60 = c.accelerator("enflame-s60");
  EXPECT_DOUBLE_EQ(s60.memory_bandwidth->value(), 672e9);
  EXPECT_DOUBLE_EQ(s60.tdp->value(), 300);
  EXPECT_FALSE(s60.peak(Precision::bf16).has_value());
  EXPECT_FALSE(s60.peak(Precision::fp16).has_value());
  EXPECT_FALSE(s60.peak(Precision::int8).has_value());
  EXPECT_FALSE(c.accelerator("910b").tdp.has_value());
  EXPECT_FALSE(c.accelerator("moorethreads-mtt-s4000").tdp.has_value());
  EXPECT_DOUBLE_EQ(c.accelerator("910b3").peak(Precision::fp16)->value(), 313e12);
}

// Figures the reference table left unknown are filled only with their own source, confidence and
// published range (data/hw/accelerators.json figure_sources).
TEST(Catalog, AscendFiguresCarryTheirSources) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& b = c.accelerator("910b");
  ASSERT_TRUE(b.memory_bandwidth.has_value());
  EXPECT_DOUBLE_EQ(b.memory_bandwidth->value(), 1600e9);
  EXPECT_DOUBLE_EQ(b.peak(Precision::bf16)->value(), 313e12);
  EXPECT_DOUBLE_EQ(b.peak(Precision::fp16)->value(), 313e12);
  for (const char* key : {"mem_bw_gbps", "tflops.fp16", "tflops.bf16"}) {
    ASSERT_TRUE(b.figure_sources.count(key)) << key;
    EXPECT_EQ(b.figure_sources.at(key).confidence, "low") << key;
    EXPECT_FALSE(b.figure_sources.at(key).source.empty()) << key;
  }
  EXPECT_DOUBLE_EQ(*b.figure_sources.at("tflops.fp16").low, 280);
  EXPECT_DOUBLE_EQ(*b.figure_sources.at("tflops.fp16").high, 414);
  for (const char* id : {"910b1", "910b2", "910b3", "910b4", "mlu590", "k100", "z100"}) {
    const Accelerator& a = c.accelerator(id);
    EXPECT_TRUE(a.memory_bandwidth.has_value()) << id;
    EXPECT_FALSE(a.figure_sources.empty()) << id;
  }
  for (const char* id : {"kunlunxin-p800", "moorethreads-mtt-s4000", "metax-c500", "biren-br100", "biren-br104"}) {
    const Accelerator& a = c.accelerator(id);
    EXPECT_TRUE(a.peak(Precision::bf16).has_value()) << id;
    EXPECT_FALSE(a.sources.empty()) << id;
  }
  // A figure source survives the JSON round trip and rejects a bad confidence.
  const Json j = accelerator_to_json(b);
  EXPECT_EQ(j["figure_sources"]["mem_bw_gbps"]["confidence"], "low");
  Json bad = j;
  bad["figure_sources"]["mem_bw_gbps"]["confidence"] = "certain";
  EXPECT_THROW(accelerator_from_json(bad, "test"), InputError);
}

// The domestic inference cards are one row per device the engines see, each figure with its source:
// the Atlas 300I Duo per Ascend 310P chip (half the card: 96 GB / 408 GB/s / 280 TOPS / 150 W, the
// Gamers Nexus teardown as reported by elektronikpraxis.de and 3dnews.ru), no BF16 (CANN HCCL lists
// float16 only for the card); the Kunlun R200 with community figures and an unknown BF16 peak.
TEST(Catalog, DomesticInferenceCardsCarryTheirSources) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& duo = c.accelerator("atlas-300i-duo");
  EXPECT_EQ(duo.id, "huawei-atlas-300i-duo");
  EXPECT_DOUBLE_EQ(*duo.memory_datasheet_figure(), 48);
  EXPECT_DOUBLE_EQ(duo.memory_bandwidth->value(), 204e9);
  EXPECT_DOUBLE_EQ(duo.peak(Precision::int8)->value(), 140e12);
  EXPECT_DOUBLE_EQ(duo.peak(Precision::fp16)->value(), 70e12);
  EXPECT_FALSE(duo.supports(Precision::bf16));
  EXPECT_DOUBLE_EQ(duo.tdp->value(), 75);
  EXPECT_DOUBLE_EQ(duo.host_bandwidth_per_direction->value(), 15.75e9);
  EXPECT_EQ(duo.figure_sources.at("tflops.fp16").confidence, "low");
  EXPECT_EQ(duo.figure_sources.at("mem_bw_gbps").confidence, "medium");
  const Accelerator& r200 = c.accelerator("r200");
  EXPECT_DOUBLE_EQ(r200.memory_bandwidth->value(), 512e9);
  EXPECT_DOUBLE_EQ(r200.peak(Precision::fp16)->value(), 128e12);
  EXPECT_FALSE(r200.peak(Precision::bf16).has_value());  // not stated: unknown, not assumed
  // Kunlunxin's product page: the R200 has 16 GB and 150 W (32 GB and 160 W are the R200-8F's).
  EXPECT_DOUBLE_EQ(*r200.memory_datasheet_figure(), 16);
  EXPECT_DOUBLE_EQ(r200.tdp->value(), 150);
  EXPECT_EQ(r200.figure_sources.at("tdp_w").confidence, "medium");
  // The Iluvatar Tiangai 100: Iluvatar's own 147 TFLOPS FP16/BF16 (FlagPerf
  // training/iluvatar/README.md, commit 744274d), 32 GiB as ixsmi reports it, no fp8 path.
  const Accelerator& tg = c.accelerator("bi-v100");
  EXPECT_EQ(tg.id, "iluvatar-bi-v100");
  EXPECT_DOUBLE_EQ(*tg.memory_datasheet_figure(), 32);
  EXPECT_DOUBLE_EQ(tg.peak(Precision::bf16)->value(), 147e12);
  EXPECT_FALSE(tg.supports(Precision::fp8_e4m3));
  EXPECT_DOUBLE_EQ(tg.tdp->value(), 250);
  EXPECT_EQ(tg.figure_sources.at("tflops.bf16").confidence, "medium");
  EXPECT_EQ(tg.figure_sources.at("tdp_w").confidence, "low");
  // The other inference cards on their vendors' product pages: the R200-8F and RG800 (the R200's
  // chip with 32 GB), the MLU370-X4 (one chip of the X8) and the Atlas 300I A2 (64 GB version).
  const Accelerator& r8f = c.accelerator("r200-8f");
  EXPECT_DOUBLE_EQ(*r8f.memory_datasheet_figure(), 32);
  EXPECT_DOUBLE_EQ(r8f.tdp->value(), 160);
  const Accelerator& rg800 = c.accelerator("rg800");
  EXPECT_DOUBLE_EQ(*rg800.memory_datasheet_figure(), 32);
  EXPECT_DOUBLE_EQ(rg800.tdp->value(), 130);
  EXPECT_DOUBLE_EQ(rg800.peak(Precision::fp16)->value(), 128e12);
  const Accelerator& x4 = c.accelerator("mlu370-x4");
  EXPECT_DOUBLE_EQ(x4.memory_bandwidth->value(), 307.2e9);
  EXPECT_DOUBLE_EQ(x4.peak(Precision::bf16)->value(), 96e12);
  EXPECT_DOUBLE_EQ(x4.tdp->value(), 150);
  const Accelerator& a2 = c.accelerator("atlas-300i-a2");
  EXPECT_DOUBLE_EQ(*a2.memory_datasheet_figure(), 64);
  EXPECT_DOUBLE_EQ(a2.memory_bandwidth->value(), 1600e9);
  EXPECT_DOUBLE_EQ(a2.peak(Precision::fp16)->value(), 280e12);
  EXPECT_FALSE(a2.peak(Precision::bf16).has_value());  // not on the page: unknown
  EXPECT_DOUBLE_EQ(a2.tdp->value(), 350);
  // Their 1-, 2- and 4-card hosts, with the chips of a Duo card counted as devices.
  for (int cards : {1, 2, 4}) {
    for (const char* host : {"kunlun-r200-8f-", "kunlun-rg800-", "mlu370-x4-", "atlas-300i-a2-"})
      EXPECT_EQ(c.node(host + std::to_string(cards)).devices, cards) << host;
    EXPECT_EQ(c.node("atlas-300i-duo-" + std::to_string(cards)).devices, 2 * cards);
    EXPECT_EQ(c.node("kunlun-r200-" + std::to_string(cards)).devices, cards);
    EXPECT_EQ(c.node("mlu370-x8-" + std::to_string(cards)).devices, cards);
    EXPECT_EQ(c.node("iluvatar-bi-v100-" + std::to_string(cards)).devices, cards);
  }
}

TEST(Catalog, AliasesResolveCaseInsensitivelyAndAreUnique) {
  const Catalog& c = Catalog::builtin();
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"h100", "nvidia-h100-sxm"},
      {"H100-SXM", "nvidia-h100-sxm"},
      {"h200", "nvidia-h200-sxm"},
      {"a100", "nvidia-a100-80gb-sxm"},
      {"a100-40gb", "nvidia-a100-40gb-sxm"},
      {"a800", "nvidia-a800-80gb-sxm"},
      {"h800", "nvidia-h800-sxm"},
      {"h20", "nvidia-h20"},
      {"b200", "nvidia-b200"},
      {"gb200", "nvidia-gb200-per-gpu"},
      {"b300", "nvidia-b300"},
      {"l4", "nvidia-l4"},
      {"l20", "nvidia-l20"},
      {"l40s", "nvidia-l40s"},
      {"a10", "nvidia-a10"},
      {"a40", "nvidia-a40"},
      {"v100", "nvidia-v100-sxm2-32gb"},
      {"3090", "nvidia-rtx-3090"},
      {"rtx4090", "nvidia-rtx-4090"},
      {"4090", "nvidia-rtx-4090"},
      {"5090", "nvidia-rtx-5090"},
      {"mi250x", "amd-mi250x"},
      {"MI300X", "amd-mi300x"},
      {"mi325x", "amd-mi325x"},
      {"mi355x", "amd-mi355x"},
      {"gaudi2", "intel-gaudi2"},
      {"gaudi3", "intel-gaudi3"},
      {"910b", "huawei-ascend-910b"},
      {"910c", "huawei-ascend-910c"},
      {"mlu370", "cambricon-mlu370-x8"},
      {"tpu-v5p", "google-tpu-v5p"},
      {"nvidia-h100-pcie", "nvidia-h100-pcie"}};
  for (const auto& [alias, id] : expected) EXPECT_EQ(c.accelerator(alias).id, id) << alias;
  std::set<std::string> names;
  for (const auto& n : c.accelerator_names()) {
    std::string l = n;
    for (auto& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_TRUE(names.insert(l).second) << "ambiguous name " << n;
  }
}

TEST(Catalog, UnknownNameSuggestsNearest) {
  const Catalog& c = Catalog::builtin();
  const std::string msg = message_of([&] { c.accelerator("h10"); });
  EXPECT_NE(msg.find("--gpu"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'h10'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h100"), std::string::npos) << msg;
  EXPECT_THROW(c.node("no-such-node"), InputError);
  EXPECT_THROW(c.fabric("no-such-fabric"), InputError);
  EXPECT_THROW(c.model("no-such-model"), InputError);
}

TEST(Catalog, UserJsonReplacesByIdKeepingAliases) {
  const std::string path = write_temp("override.json", R"J({"accelerators": [
    {"id": "nvidia-l4", "name": "L4 (my numbers)", "memory_gb": 24, "mem_bw_gbps": 280,
     "tflops": {"bf16": 100}, "sources": ["my STREAM run"]},
    {"id": "my-npu", "aliases": ["npu1"], "memory_gb": 64, "mem_bw_gbps": 1600,
     "tflops": {"fp16": 300}}]})J");
  const Catalog c = Catalog::with_user_files({path});
  EXPECT_EQ(c.accelerators().size(), 63u);
  const Accelerator& l4 = c.accelerator("l4");  // alias kept
  EXPECT_EQ(l4.name, "L4 (my numbers)");
  EXPECT_DOUBLE_EQ(l4.memory_bandwidth->value(), 280e9);
  EXPECT_FALSE(l4.tdp.has_value());  // a replacement is whole: nothing inherited
  EXPECT_DOUBLE_EQ(c.accelerator("npu1").peak(Precision::fp16)->value(), 300e12);
  EXPECT_DOUBLE_EQ(Catalog::builtin().accelerator("l4").memory_bandwidth->value(), 300e9);
}

// A replacement that gives new aliases frees the old ones: they name nothing, and may name another.
TEST(Catalog, ReplacedAliasesAreFreed) {
  const std::string first = write_temp("alias-a.json", R"({"accelerators": [
    {"id": "my-npu", "aliases": ["npu1"], "memory_gb": 64, "mem_bw_gbps": 1600}]})");
  const std::string second = write_temp("alias-b.json", R"({"accelerators": [
    {"id": "MY-NPU", "aliases": ["npu2"], "memory_gb": 32, "mem_bw_gbps": 800},
    {"id": "other-npu", "aliases": ["NPU1"], "memory_gb": 16, "mem_bw_gbps": 400}]})");
  const Catalog c = Catalog::with_user_files({first, second});
  EXPECT_EQ(c.accelerators().size(), Catalog::builtin().accelerators().size() + 2);
  EXPECT_EQ(c.accelerator("npu2").id, "MY-NPU");
  EXPECT_EQ(c.accelerator("my-npu").id, "MY-NPU");
  EXPECT_EQ(c.accelerator("npu1").id, "other-npu");
  EXPECT_DOUBLE_EQ(c.accelerator("npu2").memory_bandwidth->value(), 800e9);
}

// Every driver-reported total is quoted in the row's memory evidence, and none exceeds the board.
TEST(Catalog, ReportedMemoryTotalsAreQuotedAndBelowTheBoard) {
  int rows = 0;
  for (const Accelerator& a : Catalog::builtin().accelerators()) {
    if (!a.memory_reported) continue;
    ++rows;
    const std::string mib = fmt::format("{:.0f}", a.memory_reported->value() / kMiB);
    EXPECT_NE(a.memory_unit_basis.find(mib), std::string::npos) << a.id << " " << mib;
    EXPECT_LE(a.memory_reported->value(), a.memory->value()) << a.id;
    EXPECT_GT(a.memory_reported->value(), 0.9 * a.memory->value()) << a.id;  // ECC takes 1/16
  }
  EXPECT_GE(rows, 10);
  const std::string path = write_temp("reported.json", R"({"accelerators": [
    {"id": "x", "memory_gb": 24, "memory_unit": "GiB", "memory_reported_mib": 30000}]})");
  const std::string msg = message_of([&] { Catalog::with_user_files({path}); });
  EXPECT_NE(msg.find("memory_reported_mib"), std::string::npos) << msg;
  EXPECT_NE(msg.find("30000"), std::string::npos) << msg;
}

TEST(Catalog, UserYamlExtendsAnEntry) {
  const std::string path = write_temp("extend.yaml", R"(
accelerators:
  - id: h100-96gb-500w
    extends: h100
    name: H100 SXM 96GB at 500 W
    memory_gb: 96
    tdp_w: 500
    tflops:
      fp8: 1500
    sources: [vendor quote 2024]
)");
  const Catalog c = Catalog::with_user_files({path});
  const Accelerator& a = c.accelerator("h100-96gb-500w");
  EXPECT_DOUBLE_EQ(a.memory->value(), 96.0 * kGiB);  // the base's unit (GiB) is inherited
  EXPECT_TRUE(a.memory_unit_basis.empty());          // the H100's evidence is not for 96 GB
  EXPECT_FALSE(a.memory_reported.has_value());       // nor its driver-reported total
  EXPECT_DOUBLE_EQ(a.runtime_memory()->value(), 96.0 * kGiB);
  EXPECT_DOUBLE_EQ(a.tdp->value(), 500);
  EXPECT_DOUBLE_EQ(a.peak(Precision::fp8_e4m3)->value(), 1500e12);
  EXPECT_DOUBLE_EQ(a.peak(Precision::bf16)->value(), 989.4e12);  // inherited
  EXPECT_DOUBLE_EQ(a.memory_bandwidth->value(), 3350e9);         // inherited
  EXPECT_TRUE(a.aliases.empty());                                // h100 still names the original
  EXPECT_EQ(c.accelerator("h100").id, "nvidia-h100-sxm");
  EXPECT_EQ(a.sources.back(), "vendor quote 2024");
  EXPECT_GT(a.sources.size(), 1u);
}

TEST(Catalog, BadUserFilesNameTheFile) {
  const std::string broken = write_temp("broken.json", R"({"accelerators": [{"id": "x",)");
  EXPECT_NE(message_of([&] { Catalog::with_user_files({broken}); }).find("broken.json"),
            std::string::npos);
  const std::string nan_yaml =
      write_temp("nan.yaml", "accelerators:\n  - id: x\n    memory_gb: .nan\n");
  EXPECT_NE(message_of([&] { Catalog::with_user_files({nan_yaml}); }).find("memory_gb"),
            std::string::npos);
  const std::string negative =
      write_temp("negative.json", R"({"accelerators": [{"id": "x", "memory_gb": -80}]})");
  const std::string msg = message_of([&] { Catalog::with_user_files({negative}); });
  EXPECT_NE(msg.find("negative.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory_gb"), std::string::npos) << msg;
  const std::string typo = write_temp("typo.json", R"({"accelerator": []})");
  EXPECT_NE(message_of([&] { Catalog::with_user_files({typo}); }).find("accelerator"),
            std::string::npos);
  const std::string dup =
      write_temp("dup.json",
                 R"({"accelerators": [{"id": "x", "memory_gb": 1}, {"id": "X", "memory_gb": 2}]})");
  EXPECT_NE(message_of([&] { Catalog::with_user_files({dup}); }).find("twice"), std::string::npos);
  const std::string taken =
      write_temp("taken.json", R"({"accelerators": [{"id": "mine", "aliases": ["h100"]}]})");
  const std::string taken_msg = message_of([&] { Catalog::with_user_files({taken}); });
  EXPECT_NE(taken_msg.find("nvidia-h100-sxm"), std::string::npos) << taken_msg;
  EXPECT_NE(taken_msg.find("taken.json"), std::string::npos) << taken_msg;
  const std::string bad_extends =
      write_temp("ext.json", R"({"accelerators": [{"id": "mine", "extends": "h1000"}]})");
  EXPECT_NE(message_of([&] { Catalog::with_user_files({bad_extends}); }).find("h100"),
            std::string::npos);
  EXPECT_THROW(Catalog::with_user_files({"/nonexistent/catalog.yaml"}), InputError);
  const std::string not_object = write_temp("list.json", "[1, 2, 3]");
  EXPECT_THROW(Catalog::with_user_files({not_object}), InputError);
}

TEST(Catalog, ModelPathThatDoesNotExistIsBadInput) {
  const Catalog& c = Catalog::builtin();
  EXPECT_NE(
      message_of([&] { c.model("/nonexistent/config.json"); }).find("/nonexistent/config.json"),
      std::string::npos);
  const std::string neither = write_temp("neither.json", R"({"hidden_size": 4096})");
  EXPECT_NE(message_of([&] { c.model(neither); }).find("model_type"), std::string::npos);
}

}  // namespace
}  // namespace memwall

namespace memwall {
namespace {

TEST(Catalog, BuiltinHasTheContractNodesFabricsAndModels) {
  const Catalog& c = Catalog::builtin();
  for (const char* id : {"hgx-a100", "hgx-a800", "hgx-h100", "hgx-h800", "hgx-h20", "hgx-h200",
                         "hgx-b200", "gb200-nvl72", "pcie-4090", "pcie-4090-p2p", "pcie-l40s",
                         "pcie-l20", "mi300x-8", "gaudi3-8", "ascend-910b-8"}) {
    const Node* n = c.find_node(id);
    ASSERT_NE(n, nullptr) << id;
    EXPECT_NE(c.find_accelerator(n->accelerator), nullptr) << id << " -> " << n->accelerator;
  }
  EXPECT_EQ(c.node("HGX-H100").accelerator, "nvidia-h100-sxm");
  for (const char* id : {"ib-hdr", "ib-ndr", "ib-xdr", "roce-200", "roce-400"})
    EXPECT_NE(c.find_fabric(id), nullptr) << id;
  EXPECT_GE(c.models().size(), 25u);
  for (const char* id : {"llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                         "qwen2.5-72b", "mixtral-8x7b", "deepseek-v3", "gpt3-175b"})
    EXPECT_EQ(c.model(id).id, id);
  EXPECT_EQ(c.model("llama-3.1-8b").hidden, 4096);
}

TEST(Catalog, ModelFromHuggingFaceConfigPath) {
  const ModelSpec m = Catalog::builtin().model(
      memwall::test::source_dir() + "/src/memwall/model/testdata/llama-3.1-8b.config.json");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.vocab, 128256);
}

TEST(Catalog, UserNodeMustNameAKnownAccelerator) {
  const Catalog& c = Catalog::builtin();
  Json node = node_to_json(c.node("hgx-h100"));
  node["id"] = "my-node";
  node["accelerator"] = "h1000";
  Catalog copy = c;
  EXPECT_NE(message_of([&] {
              copy.load(Json{{"nodes", {node}}}, "mine.json");
            }).find("h100"),
            std::string::npos);
  node["accelerator"] = "h100";
  copy.load(Json{{"nodes", {node}}}, "mine.json");
  EXPECT_EQ(copy.node("my-node").devices, 8);
}

}  // namespace
}  // namespace memwall

namespace memwall {
namespace {

TEST(Catalog, YamlThatIsNotUtf8IsBadInput) {
  // Found by fuzz/catalog_fuzz: the error message's dump() of such text used to throw a
  // nlohmann type_error that escaped as a crash.
  const std::string path =
      write_temp("latin1.yaml", "accelerators:\n  - id: gpu\n    tflops: \xff\xfe\n");
  const std::string msg = message_of([&] { Catalog::with_user_files({path}); });
  EXPECT_NE(msg.find("latin1.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("UTF-8"), std::string::npos) << msg;
}

}  // namespace
}  // namespace memwall

namespace memwall {
namespace {

// Models named as Hugging Face names them resolve to the zoo entry with the same shapes; a
// quantised checkpoint or an unknown repository does not.
TEST(Catalog, HuggingFaceRepositoryIdsResolveToZooModels) {
  const Catalog& c = Catalog::builtin();
  EXPECT_EQ(c.model("meta-llama/Llama-3.1-8B-Instruct").id, "llama-3.1-8b");
  EXPECT_EQ(c.model("meta-llama/Meta-Llama-3.1-70B").id, "llama-3.1-70b");
  EXPECT_EQ(c.model("Meta-Llama-3-8B").id, "llama-3-8b");
  EXPECT_EQ(c.model("Mixtral-8x7B-v0.1").id, "mixtral-8x7b");
  EXPECT_EQ(c.model("qwen/qwen2.5-72b-instruct").id, "qwen2.5-72b");
  EXPECT_EQ(c.model("https://huggingface.co/deepseek-ai/DeepSeek-V3").id, "deepseek-v3");
  EXPECT_THROW(c.model("meta-llama/Llama-3.1-405B-Instruct-FP8"), InputError);
  EXPECT_THROW(c.model("Qwen2-72B"), InputError);  // not in the zoo: Qwen2 is not Qwen2.5
}

// The built-in catalog skips the embedded files whose text cannot hold an entry key (messages,
// engines, monitor exporters): loading every file, as it did before, gives the same catalog.
TEST(Catalog, BuiltinSkipsOnlyFilesWithoutEntries) {
  Catalog all;
  size_t without = 0;
  for (const auto& f : data::embedded_files()) {
    const std::string origin = "built-in data/" + std::string(f.path);
    const Json doc = parse_document(f.content, origin);
    if (!doc.is_object()) continue;
    Json entries = Json::object();
    for (const char* kind : {"accelerators", "nodes", "fabrics", "models", "hosts"})
      if (doc.contains(kind)) entries[kind] = doc.at(kind);
    if (entries.empty()) ++without;
    all.load(entries, origin);
  }
  EXPECT_GT(without, 5u);  // files the filter may skip
  const Catalog& c = Catalog::builtin();
  auto ids = [](const auto& list) {
    std::vector<std::string> out;
    for (const auto& e : list) out.push_back(e.id);
    return out;
  };
  EXPECT_EQ(ids(c.accelerators()), ids(all.accelerators()));
  EXPECT_EQ(ids(c.nodes()), ids(all.nodes()));
  EXPECT_EQ(ids(c.fabrics()), ids(all.fabrics()));
  EXPECT_EQ(ids(c.models()), ids(all.models()));
  EXPECT_EQ(ids(c.hosts()), ids(all.hosts()));
}

}  // namespace
}  // namespace memwall
