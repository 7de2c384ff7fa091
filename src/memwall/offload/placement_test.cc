#include "memwall/offload/placement.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"
#include "memwall/offload/bandwidth.h"
#include "memwall/offload/request.h"

namespace memwall::offload {
namespace {

infer::Deployment deployment(const std::string& model, const std::string& gpu,
                             Precision weight = Precision::int4) {
  infer::DeploymentOptions o;
  o.model = model;
  o.gpu = gpu;
  o.weight_precision = weight;
  return infer::make_deployment(Catalog::builtin(), o);
}

HostSetup host(const std::string& gpu, std::optional<std::string> cpu = std::nullopt,
               std::optional<double> gib = std::nullopt) {
  return resolve_host(Catalog::builtin(), Catalog::builtin().accelerator(gpu), {cpu, gib, {}});
}

TEST(HostCatalog, EveryBuiltInHostHasBandwidthMemoryAndALink) {
  for (const auto& h : Catalog::builtin().hosts()) {
    EXPECT_TRUE(h.memory_bandwidth().has_value()) << h.id;
    EXPECT_TRUE(h.installed_memory().has_value()) << h.id;
    EXPECT_TRUE(h.peak(Precision::fp32).has_value()) << h.id;
    EXPECT_FALSE(h.sources.empty()) << h.id;
  }
}

TEST(HostCatalog, DramPeakIsChannelsTimesTransferRateTimesEightBytes) {
  const Host& genoa = Catalog::builtin().host("genoa");
  EXPECT_NEAR(genoa.memory_bandwidth()->value(), 12 * 4800e6 * 8, 1);  // 460.8 GB/s
  const HostSetup two = host("h100", "2xgenoa");
  EXPECT_EQ(two.host.sockets, 2);
  EXPECT_NEAR(two.dram_peak.value(), 2 * 460.8e9, 1e3);
  EXPECT_THROW(host("h100", "9xgenoa"), InputError);
  EXPECT_THROW(host("h100", "no-such-cpu"), InputError);
}

TEST(HostSetup, DefaultsFollowTheCardAndTheMemoryAsked) {
  EXPECT_EQ(host("4090").host.id, "amd-ryzen-9-7950x");
  EXPECT_EQ(host("4090", std::nullopt, 1024.0).host.id, "amd-epyc-9654");  // > a desktop's 192
  EXPECT_EQ(host("h100").host.id, "amd-epyc-9654");
  EXPECT_EQ(host("gh200").link, "NVLink-C2C");
  // A 4090 is PCIe Gen4: the link is the slower end even in a Gen5 host.
  EXPECT_NEAR(host("4090").link_bandwidth.value(), 31.5e9, 1e6);
  EXPECT_THROW(host("4090", "7950x", 1024.0), InfeasibleError);
  EXPECT_THROW(host("4090", std::nullopt, -1.0), InputError);
}

TEST(Strategy, ParsesTheNamesUsersKnow) {
  EXPECT_EQ(parse_strategy("layers:40").gpu_layers, 40);
  EXPECT_EQ(parse_strategy("weights-stream").strategy, Strategy::weights_stream);
  EXPECT_EQ(to_string(parse_strategy("layers:7")), "layers:7");
  EXPECT_THROW(parse_strategy("layers:x"), InputError);
  EXPECT_THROW(parse_strategy("layers:-1"), InputError);
  EXPECT_THROW(parse_strategy("gpu"), InputError);
}

TEST(Offload, SeventyBOnA4090RunsWithPartOfTheLayersInDram) {
  const auto d = deployment("llama-3.1-70b", "4090");
  const HostSetup h = host("4090");
  const infer::Workload w{1, 512, 128};
  EXPECT_THROW(estimate(d, h, {Strategy::none, std::nullopt}, w), InfeasibleError);
  const Estimate e = best(d, h, w);
  EXPECT_LE(e.placement.gpu_used.value(), e.placement.gpu_usable.value());
  EXPECT_GT(e.placement.host_used.value(), 0);
  EXPECT_LT(e.placement.gpu_layers, 80);
  // Decode reads the CPU layers from dual-channel DDR5: a few tokens/s, not the GPU's ~25.
  EXPECT_GT(e.infer.tpot.value(), 0.1);
  EXPECT_LT(e.infer.tpot.value(), 2.0);
  EXPECT_EQ(e.decode.bound, "DRAM bandwidth");
}

TEST(Offload, MoreLayersOnTheGpuIsNeverSlowerForDecode) {
  const auto d = deployment("llama-3.1-70b", "4090");
  const HostSetup h = host("4090");
  const infer::Workload w{1, 128, 64};
  double last = 1e9;
  for (int n : {0, 10, 20, 30, 40}) {
    const Estimate e = estimate(d, h, {Strategy::layers, n}, w);
    EXPECT_LE(e.infer.tpot.value(), last) << n;
    last = e.infer.tpot.value();
  }
}

TEST(Offload, DeepSeekV3ExpertsInDramOnOneConsumerCard) {
  const auto d = deployment("deepseek-v3", "4090");
  const HostSetup h = host("4090", std::nullopt, 1024.0);
  const Estimate e = best(d, h, {1, 512, 128});
  EXPECT_EQ(e.placement.strategy.strategy, Strategy::experts);
  // The routed experts (~650B parameters at 4.5 bits) are in DRAM, the rest fits in 24 GiB.
  EXPECT_GT(e.placement.host_used.value(), 300 * kGiB);
  EXPECT_LT(e.placement.gpu_used.value(), 24 * kGiB);
  EXPECT_EQ(e.decode.bound, "DRAM bandwidth");
  EXPECT_GT(e.infer.tpot.value(), 0.02);
  EXPECT_LT(e.infer.tpot.value(), 0.5);
}

TEST(Offload, WeightsBeyondDramSpillToNvmeAndCostItsBandwidth) {
  const auto d = deployment("deepseek-v3", "4090");
  const Estimate in_dram =
      estimate(d, host("4090", "genoa", 768.0), {Strategy::experts, {}}, {1, 64, 16});
  const Estimate spilled =
      estimate(d, host("4090", "genoa", 256.0), {Strategy::experts, {}}, {1, 64, 16});
  EXPECT_EQ(in_dram.placement.disk_used.value(), 0);
  EXPECT_GT(spilled.placement.disk_used.value(), 0);
  EXPECT_GT(spilled.infer.tpot.value(), in_dram.infer.tpot.value());
  EXPECT_EQ(spilled.decode.bound, "NVMe");
}

TEST(Offload, StrategiesThatDoNotApplyAreBadInput) {
  const auto d = deployment("llama-3.1-70b", "4090");
  EXPECT_THROW(estimate(d, host("4090"), {Strategy::experts, {}}, {1, 8, 8}), InputError);
  EXPECT_THROW(estimate(d, host("4090"), {Strategy::layers, 81}, {1, 8, 8}), InputError);
}

// FlexGen runs the prompt's attention on the GPU and writes the KV to its home in DRAM; only
// decode attention (mha_gen) is delegated to the CPU (flex_opt.py SelfAttention.forward, i == 0
// vs i > 0; Sheng et al., ICML 2023 §4.2). So TTFT = the all-GPU prefill + the KV over the link.
TEST(Offload, KvOffloadPrefillRunsOnTheGpuAndWritesTheKvToDram) {
  const auto d = deployment("llama-3.1-8b", "4090", Precision::bf16);
  const HostSetup h = host("4090");
  const infer::Workload w{1, 32768, 128};
  const double gpu_prefill = infer::estimate(d, w).ttft.value();  // ~7.55 s
  const double link = host_link_model(h, default_host_efficiency()).achievable.value();
  const double kv_write = 131072.0 * 32768 / link;  // 4.29 GB at 0.8 x 31.5 GB/s: ~0.17 s
  const Estimate e = estimate(d, h, {Strategy::kv, std::nullopt}, w);
  EXPECT_NEAR(e.infer.ttft.value(), gpu_prefill + kv_write, 0.02 * (gpu_prefill + kv_write));
  EXPECT_EQ(e.prefill.cpu.value(), 0);
  EXPECT_GT(e.decode.cpu.value(), 0);  // decode attention stays on the CPU
  // Four 32K prompts: the GPU prefill (~31 s) then ~0.43 s decode steps beat streaming the
  // weights (~97 s end to end; physics audit 3, #4).
  const Estimate four = best(d, h, {4, 32768, 128});
  EXPECT_EQ(four.placement.strategy.strategy, Strategy::kv);
  EXPECT_LT(four.infer.e2e.value(), 90);
}

// With the copy hidden behind a long prompt's compute, the prefill's bound is the GPU's FLOP/s,
// as the same operators are without offload (physics audit 3, #8).
TEST(Offload, StreamedPrefillNamesTheBoundOfItsOperators) {
  const auto d = deployment("llama-3.1-8b", "4090", Precision::bf16);
  const Estimate e =
      estimate(d, host("4090"), {Strategy::weights_stream, std::nullopt}, {4, 32768, 128});
  EXPECT_LT(e.placement.gpu_layers, e.placement.layers);
  EXPECT_EQ(e.prefill.transfer.value(), 0.0);  // the copy is hidden
  EXPECT_EQ(e.prefill.bound, "GPU FLOP/s");
}

// MBU of an offload run: the bytes the GPU's own memory moves for the operators it runs, per
// second of the step, over its datasheet bandwidth. Qwen2.5-72B bf16 on one H100: the GPU part
// reads ~70.3 GiB per ~327 ms decode step, i.e. ~0.069 of 3.35 TB/s (seed audit 3, D5).
TEST(Offload, MbuCountsTheGpusOwnTraffic) {
  const auto d = deployment("qwen2.5-72b", "h100", Precision::bf16);
  const Estimate e = best(d, host("h100"), {1, 1024, 256});
  const double gpu_bytes = e.decode.gpu_bytes.value();
  EXPECT_GT(gpu_bytes, 70 * kGiB);
  EXPECT_LT(gpu_bytes, 80 * kGiB);
  EXPECT_NEAR(e.infer.mbu, gpu_bytes / e.infer.tpot.value() / 3350e9, 1e-9);
  EXPECT_NEAR(e.infer.mbu, 0.069, 0.006);
  EXPECT_GT(e.infer.prefill.mbu, 0);
}

TEST(OffloadRequest, DoesNotFitNamesTheOffloadThatWouldRunIt) {
  Request r;
  r.infer.deployment.model = "llama-3.1-70b";
  r.infer.deployment.gpu = "4090";
  r.infer.deployment.weight_precision = Precision::int4;
  r.infer.input_tokens = 512;
  r.infer.output_tokens = 128;
  try {
    answer(Catalog::builtin(), r);
    FAIL() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("--offload auto would run it"), std::string::npos)
        << e.what();
  }
  r.strategy = parse_strategy("auto");
  const Answer a = answer(Catalog::builtin(), r);
  const Json j = to_json(a, false);
  EXPECT_TRUE(j.contains("tpot_s"));
  EXPECT_TRUE(j["offload"]["placement"].contains("kv_cache"));
  EXPECT_GT(j["offload"]["host_bytes"].get<double>(), 0);
}

}  // namespace
}  // namespace memwall::offload
