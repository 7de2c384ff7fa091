#include "memwall/train/pipeline_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "memwall/core/error.h"

namespace memwall::train {
namespace {

TrainConfig pipeline(int pp, int vpp) {
  TrainConfig c;
  c.pp = pp;
  c.vpp = vpp;
  return c;
}

int sum(const PipelineSplit& s) {
  int total = 0;
  for (const StageLayers& st : s.stages) total += st.layers;
  return total;
}

TEST(PipelineSplit, EvenWhenTheLayersDivide) {
  const PipelineSplit s = split_layers(80, 0, pipeline(4, 5));
  EXPECT_TRUE(s.even);
  for (const StageLayers& st : s.stages) EXPECT_EQ(st.layers, 20);
}

TEST(PipelineSplit, Llama405bAt126LayersTakesTheShortfallFromTheEnds) {
  // 126 = 16 x 8 - 2: first and last stage 7, the 14 others 8.
  const PipelineSplit s = split_layers(126, 0, pipeline(16, 1));
  EXPECT_FALSE(s.even);
  EXPECT_EQ(s.stages.front().layers, 7);
  EXPECT_EQ(s.stages.back().layers, 7);
  for (size_t i = 1; i + 1 < s.stages.size(); ++i) EXPECT_EQ(s.stages[i].layers, 8);
  EXPECT_EQ(sum(s), 126);
  // PP 8 x VPP 8: 64 chunks of 2, the first and last chunk 1.
  const PipelineSplit v = split_layers(126, 0, pipeline(8, 8));
  EXPECT_EQ(v.chunk_layers.front(), 1);
  EXPECT_EQ(v.chunk_layers.back(), 1);
  EXPECT_EQ(v.stages.front().layers, 15);
  EXPECT_EQ(v.stages.back().layers, 15);
  EXPECT_EQ(v.stages[3].layers, 16);
  EXPECT_EQ(sum(v), 126);
}

TEST(PipelineSplit, AccountingForEmbeddingAndLossMatchesMegatron) {
  TrainConfig c = pipeline(16, 1);
  c.account_for_embedding = true;
  c.account_for_loss = true;
  const PipelineSplit s = split_layers(126, 0, c);  // 128 units, 8 per stage
  EXPECT_EQ(s.stages.front().layers, 7);
  EXPECT_EQ(s.stages.back().layers, 7);
  EXPECT_EQ(s.stages[5].layers, 8);
  c.account_for_loss = false;  // 127 units do not divide by 16
  EXPECT_THROW(split_layers(126, 0, c), InfeasibleError);
}

TEST(PipelineSplit, GivenFirstAndLastStagesAndTheRestShared) {
  TrainConfig c = pipeline(16, 1);
  c.first_stage_layers = 1;
  c.last_stage_layers = 4;
  const PipelineSplit s = split_layers(61, 58, c);  // DeepSeek-V3: 3 dense layers first
  EXPECT_EQ(s.stages.front().layers, 1);
  EXPECT_EQ(s.stages.back().layers, 4);
  for (size_t i = 1; i + 1 < s.stages.size(); ++i) EXPECT_EQ(s.stages[i].layers, 4);
  EXPECT_EQ(s.stages[0].dense, 1);
  EXPECT_EQ(s.stages[1].dense, 2);
  EXPECT_EQ(s.stages[1].moe, 2);
  EXPECT_EQ(s.stages[2].dense, 0);
  c.last_stage_layers = 5;  // 55 over 14 stages does not divide
  EXPECT_THROW(split_layers(61, 58, c), InfeasibleError);
  c.account_for_embedding = true;  // Megatron takes one or the other
  EXPECT_THROW(split_layers(61, 58, c), InputError);
}

TEST(PipelineSplit, DeepSeekV3SixtyOneLayersSplitAnyWay) {
  for (auto [pp, vpp] : {std::pair{16, 1}, std::pair{4, 4}, std::pair{8, 1}, std::pair{61, 1}}) {
    const PipelineSplit s = split_layers(61, 58, pipeline(pp, vpp));
    EXPECT_EQ(sum(s), 61) << pp << "x" << vpp;
    int dense = 0;
    for (const StageLayers& st : s.stages) dense += st.dense;
    EXPECT_EQ(dense, 3);
    const auto [lo, hi] = std::minmax_element(s.chunk_layers.begin(), s.chunk_layers.end());
    EXPECT_LE(*hi - *lo, 1);
  }
  EXPECT_THROW(split_layers(61, 58, pipeline(32, 2)), InfeasibleError);  // 64 chunks
}

}  // namespace
}  // namespace memwall::train
