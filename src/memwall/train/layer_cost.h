// Time of one transformer layer (and of the embedding and LM-head ends) for one micro-batch on
// one GPU: forward, backward and recomputed forward, each split into kernel time and the
// tensor-, context- and expert-parallel collectives it issues (as issued, before any overlap).
#pragma once

#include "memwall/comm/collective.h"
#include "memwall/train/config.h"
#include "memwall/train/kernel_time.h"
#include "memwall/train/setup.h"

namespace memwall::train {

struct PassCost {
  double compute_s = 0;    // all kernels (GEMMs, attention, element-wise, launch overheads)
  double gemm_s = 0;       // the GEMM part of compute (what TP communication can hide behind)
  double attention_s = 0;  // the attention-core part (what the CP ring exchange hides behind)
  double tp_comm_s = 0;    // TP all-reduce / all-gather / reduce-scatter
  double cp_comm_s = 0;    // CP ring exchange of K and V
  double ep_comm_s = 0;    // EP all-to-all dispatch and combine
  double flops = 0;        // FLOPs executed (hardware)
  PassCost& operator+=(const PassCost& o);
  PassCost scaled(double k) const;
};

struct LayerCost {
  PassCost forward, backward, recompute;
};

// The machines a configuration runs on: ceil(gpus / node size) nodes.
comm::Cluster cluster_for(const TrainSetup& setup, const TrainConfig& c);

LayerCost layer_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& rates,
                     const comm::Cluster& cluster, bool moe_layer);

// First stage: embedding lookup (forward) and its gradient scatter (backward).
// Last stage: final norm, LM head GEMM and vocabulary-parallel cross-entropy.
struct EdgeCost {
  PassCost embedding_forward, embedding_backward, head_forward, head_backward;
};
EdgeCost edge_cost(const TrainSetup& setup, const TrainConfig& c, const DeviceRates& rates,
                   const comm::Cluster& cluster);

}  // namespace memwall::train
