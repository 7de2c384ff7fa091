#include "memwall/train/offload.h"

#include <gtest/gtest.h>

#include <string>

#include "memwall/catalog/catalog.h"
#include "memwall/core/error.h"
#include "memwall/offload/bandwidth.h"
#include "memwall/train/offload_request.h"

namespace memwall::train {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// Llama-3.1-8B on one V100 of a DGX-2, fp16, ZeRO-2, one micro-batch per step.
TrainSetup v100_setup() {
  return make_setup(cat().model("llama-3.1-8b"), cat().accelerator("v100"), cat().node("dgx2-v100"),
                    std::nullopt);
}

TrainConfig one_gpu(int64_t global_batch = 1) {
  TrainConfig c;
  c.gpus = 1;
  c.zero = 2;
  c.precision = Precision::fp16;
  c.micro_batch = 1;
  c.global_batch = global_batch;
  c.seq = 2048;
  c.recompute = Recompute::full;
  return c;
}

TrainEstimate unchecked(const TrainSetup& s, const TrainConfig& c) {
  EstimateOptions o;
  o.require_fit = false;
  return estimate_training(s, c, o);
}

offload::HostSetup xeon(int sockets = 2) {
  offload::HostOptions o;
  o.cpu = std::to_string(sockets) + "xintel-xeon-platinum-8168";
  return offload::resolve_host(cat(), cat().accelerator("v100"), o);
}

TEST(TrainOffloadSpec, ParsesDeepSpeedDevicesAndRejectsTheRest) {
  const OffloadSpec s = parse_offload("optimizer:nvme,params:nvme");
  EXPECT_EQ(s.optimizer, OffloadDevice::nvme);
  EXPECT_EQ(s.params, OffloadDevice::nvme);
  EXPECT_EQ(to_string(s), "optimizer:nvme,params:nvme");
  EXPECT_FALSE(parse_offload("none").any());
  EXPECT_EQ(to_string(parse_offload("params:cpu")), "params:cpu");
  for (const char* bad : {"optimizer", "optimizer:gpu", "weights:cpu",
                          "optimizer:cpu,optimizer:nvme", "optimizer:cpu,"})
    EXPECT_THROW(parse_offload(bad), InputError) << bad;
}

TEST(TrainOffload, OptimizerOffloadFreesTheOptimizerStateAndGradientsOfTheGpu) {
  const TrainSetup s = v100_setup();
  const TrainEstimate base = unchecked(s, one_gpu());
  ASSERT_FALSE(base.memory.fits());  // 8B with Adam needs ~16 bytes per parameter: not on 32 GiB
  const OffloadedEstimate o = apply_offload(s, base, parse_offload("optimizer:cpu"), xeon(), 0);
  const Bytes moved = base.memory.optimizer_state + base.memory.gradients;
  EXPECT_NEAR(o.offload.gpu_saved_per_gpu.value(), moved.value(), 1.0);
  EXPECT_NEAR(o.estimate.memory.total().value(), (base.memory.total() - moved).value(), 1.0);
  EXPECT_TRUE(o.estimate.memory.fits());
  // The host holds the fp32 state and the 16-bit gradients: 12 + 2 bytes per parameter.
  const double params = base.memory.optimizer_state.value() / 12.0;
  EXPECT_NEAR(o.offload.host_per_node.value(), 14.0 * params, 1.0);
  EXPECT_EQ(o.offload.nvme_per_node.value(), 0.0);
}

TEST(TrainOffload, PcieCarriesTwoBytesPerParameterEachWayPerStep) {
  const TrainSetup s = v100_setup();
  const TrainEstimate base = unchecked(s, one_gpu());
  const OffloadedEstimate o = apply_offload(s, base, parse_offload("optimizer:cpu"), xeon(), 0);
  const double params = base.memory.optimizer_state.value() / 12.0;
  EXPECT_NEAR(o.offload.pcie_to_host.value(), 2.0 * params, 1.0);
  EXPECT_NEAR(o.offload.pcie_to_gpu.value(), 2.0 * params, 1.0);
  // Timed at the link's achievable rate (offload::link_time, the inference model's).
  const Seconds expected =
      offload::link_time(Bytes(4.0 * params), xeon(), offload::default_host_efficiency());
  EXPECT_NEAR(o.offload.pcie_time.value(), expected.value(), 1e-9);
  // Gradients go down every micro-batch (DeepSpeed accumulates them on the CPU).
  const OffloadedEstimate four =
      apply_offload(s, unchecked(s, one_gpu(4)), parse_offload("optimizer:cpu"), xeon(), 0);
  EXPECT_NEAR(four.offload.pcie_to_host.value(), 8.0 * params, 1.0);
}

TEST(TrainOffload, CpuAdamTimeScalesWithParameterBytesOverDramBandwidth) {
  const TrainSetup s = v100_setup();
  const TrainEstimate base = unchecked(s, one_gpu());
  const offload::HostSetup h = xeon();
  const OffloadedEstimate o = apply_offload(s, base, parse_offload("optimizer:cpu"), h, 0);
  const double params = base.memory.optimizer_state.value() / 12.0;
  // One rank: its buffers sit on one socket's DRAM (6 x DDR4-2666 = 128 GB/s) at the streaming
  // fraction the inference model uses.
  const double one_socket =
      6 * 2666e6 * 8 * offload::default_host_efficiency().cpu_memory_bandwidth_fraction;
  EXPECT_NEAR(o.offload.cpu_step_time.value(),
              params * OffloadParameters{}.cpu_adam_bytes_per_param / one_socket, 1e-6);
  offload::HostSetup fast = h;
  fast.dram_peak = h.dram_peak * 2.0;
  const OffloadedEstimate f = apply_offload(s, base, parse_offload("optimizer:cpu"), fast, 0);
  EXPECT_NEAR(f.offload.cpu_step_time.value() * 2, o.offload.cpu_step_time.value(), 1e-9);
  // Without DPU the CPU step is on the critical path; the step is longer than the GPU's work.
  EXPECT_GT(o.estimate.step_time.value(),
            (base.breakdown.compute + base.breakdown.recompute).value() +
                o.offload.cpu_step_time.value());
}

TEST(TrainOffload, DelayedUpdateHidesTheCpuStepBehindTheNextStep) {
  const TrainSetup s = v100_setup();
  const TrainEstimate base = unchecked(s, one_gpu(8));
  OffloadSpec dpu = parse_offload("optimizer:cpu");
  const OffloadedEstimate plain = apply_offload(s, base, dpu, xeon(), 0);
  dpu.delayed_update = true;
  const OffloadedEstimate delayed = apply_offload(s, base, dpu, xeon(), 0);
  EXPECT_LT(delayed.estimate.step_time.value(), plain.estimate.step_time.value());
  EXPECT_EQ(delayed.offload.optimizer_exposed.value(), 0.0);  // 8 micro-batches outlast it
  EXPECT_NEAR(delayed.estimate.step_time.value(), delayed.estimate.breakdown.total().value(),
              1e-12);
}

TEST(TrainOffload, InfinityPutsParametersAndOptimizerOnNvme) {
  const TrainSetup s = v100_setup();
  TrainConfig c = one_gpu();
  c.zero = 3;
  const TrainEstimate base = unchecked(s, c);
  EXPECT_THROW(apply_offload(s, unchecked(s, one_gpu()), parse_offload("params:cpu"), xeon(), 0),
               InputError);  // parameters offload under ZeRO-3 only
  EXPECT_THROW(apply_offload(s, base, parse_offload("optimizer:nvme"), xeon(), 0), InputError);
  const OffloadedEstimate o =
      apply_offload(s, base, parse_offload("optimizer:nvme,params:nvme"), xeon(), 4);
  const double params = base.memory.optimizer_state.value() / 12.0;
  EXPECT_NEAR(o.offload.nvme_per_node.value(), 14.0 * params, 1.0);  // 12 fp32 + 2 fp16
  EXPECT_NEAR(o.offload.host_per_node.value(), 2.0 * params, 1.0);   // the gradients
  EXPECT_EQ(o.estimate.memory.weights.value(), 0.0);
  EXPECT_GT(o.offload.nvme_time.value(), 0.0);
  // Four drives read twice as fast as two.
  const OffloadedEstimate two =
      apply_offload(s, base, parse_offload("optimizer:nvme,params:nvme"), xeon(), 2);
  EXPECT_NEAR(two.offload.nvme_time.value(), 2 * o.offload.nvme_time.value(), 1e-9);
}

TEST(TrainOffload, HostMemoryTooSmallIsInfeasibleWithTheNumbers) {
  const TrainSetup s = v100_setup();
  offload::HostOptions o;
  o.cpu = "intel-xeon-platinum-8168";
  o.host_memory_gb = 64;
  const offload::HostSetup small = offload::resolve_host(cat(), cat().accelerator("v100"), o);
  try {
    apply_offload(s, unchecked(s, one_gpu()), parse_offload("optimizer:cpu"), small, 0);
    FAIL();
  } catch (const InfeasibleError& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
}

TEST(TrainOffloadRequest, ANotFittingRunIsToldTheOffloadThatFitsIt) {
  OffloadRequest r;
  r.train.model = "llama-3.1-8b";
  r.train.gpu = "v100";
  r.train.node = "dgx2-v100";
  r.train.config = one_gpu(8);
  r.train.recompute = "full";
  try {
    answer(cat(), r);
    FAIL();
  } catch (const InfeasibleError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--offload optimizer:cpu would fit it"), std::string::npos) << what;
    EXPECT_NE(what.find("intel-xeon-platinum-8168"), std::string::npos) << what;
  }
  r.spec = parse_offload("optimizer:cpu");
  const OffloadAnswer a = answer(cat(), r);
  ASSERT_TRUE(a.offload.has_value());
  EXPECT_TRUE(a.answer.estimate.memory.fits());
  const Json j = to_json(a);
  EXPECT_GT(j.at("offload").at("host_bytes_per_node").get<double>(), 0.0);
  EXPECT_EQ(j.at("offload").at("strategy"), "optimizer:cpu");
  EXPECT_NEAR(j.at("step_time_s").get<double>(), a.answer.estimate.step_time.value(), 1e-12);
}

}  // namespace
}  // namespace memwall::train
