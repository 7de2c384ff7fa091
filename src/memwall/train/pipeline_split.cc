#include "memwall/train/pipeline_split.h"

#include <fmt/format.h>

#include <algorithm>

#include "memwall/core/error.h"

namespace memwall::train {
namespace {

// Layers of stage `s` (given as a stage total) spread over its v chunks; Megatron-LM requires
// them to divide (TransformerConfig checks num_layers_in_first/last_pipeline_stage % vpp).
void spread_stage(std::vector<int>& chunks, int pp, int v, int s, int stage_layers,
                  const char* what) {
  if (stage_layers % v != 0)
    throw InfeasibleError(
        fmt::format("{} layers on the {} are not divisible by V = {}", stage_layers, what, v));
  for (int k = 0; k < v; ++k) chunks[static_cast<size_t>(k * pp + s)] = stage_layers / v;
}

}  // namespace

PipelineSplit split_layers(int layers, int moe_layers, const TrainConfig& c) {
  const int pp = c.pp, v = c.vpp, n = pp * v;
  PipelineSplit out;
  out.chunk_layers.assign(static_cast<size_t>(n), 0);
  if (n > layers)
    throw InfeasibleError(
        fmt::format("PP x V = {} x {} = {} model chunks for only {} layers", pp, v, n, layers));
  const bool given = c.first_stage_layers > 0 || c.last_stage_layers > 0;
  if (c.first_stage_layers < 0 || c.last_stage_layers < 0)
    throw InputError("decoder-first/last-pipeline-num-layers",
                     std::to_string(std::min(c.first_stage_layers, c.last_stage_layers)),
                     "a whole number >= 1");
  if (given && (c.account_for_embedding || c.account_for_loss))
    throw InputError(
        "--account-for-embedding/loss-in-pipeline-split cannot be combined with "
        "--decoder-first/last-pipeline-num-layers (Megatron-LM accepts one or the other)");
  if (given) {
    if (pp < 2) throw InfeasibleError("first/last stage layer counts need PP >= 2");
    // Megatron-LM: the given stages hold what is asked, the other stages share the rest evenly.
    const int first = c.first_stage_layers, last = c.last_stage_layers;
    const int fixed = (first > 0 ? 1 : 0) + (last > 0 ? 1 : 0);
    const int rest = layers - first - last;
    const int others = pp - fixed;
    if (rest < 0 || (others == 0 && rest != 0) || (others > 0 && rest % others != 0))
      throw InfeasibleError(fmt::format(
          "{} layers minus {} on the first and {} on the last stage leave {}, which {} {} other "
          "stage(s) cannot share evenly",
          layers, first, last, rest, rest < 0 ? "is negative:" : "the", others));
    const int each = others > 0 ? rest / others : 0;
    for (int s = 0; s < pp; ++s) {
      const bool is_first = s == 0 && first > 0, is_last = s == pp - 1 && last > 0;
      const int stage = is_first ? first : is_last ? last : each;
      spread_stage(out.chunk_layers, pp, v, s, stage,
                   is_first  ? "first stage"
                   : is_last ? "last stage"
                             : "middle stages");
    }
    out.rule = fmt::format("given: first stage {}, last stage {}, other stages {} each",
                           first > 0 ? first : each, last > 0 ? last : each, each);
  } else if (c.account_for_embedding || c.account_for_loss) {
    // Megatron-LM: the embedding (loss) counts as one layer of the first (last) chunk; the
    // total must then divide evenly among the chunks.
    const int units = layers + (c.account_for_embedding ? 1 : 0) + (c.account_for_loss ? 1 : 0);
    if (units % n != 0)
      throw InfeasibleError(
          fmt::format("{} layers{}{} = {} are not divisible by PP x V = {} x {} = {}", layers,
                      c.account_for_embedding ? " + embedding" : "",
                      c.account_for_loss ? " + loss" : "", units, pp, v, n));
    std::fill(out.chunk_layers.begin(), out.chunk_layers.end(), units / n);
    if (c.account_for_embedding) out.chunk_layers.front() -= 1;
    if (c.account_for_loss) out.chunk_layers.back() -= 1;
    out.rule =
        fmt::format("{} units per chunk with the{}{} counted as layers", units / n,
                    c.account_for_embedding ? " embedding" : "",
                    c.account_for_loss ? (c.account_for_embedding ? " and loss" : " loss") : "");
  } else if (layers % n == 0) {
    std::fill(out.chunk_layers.begin(), out.chunk_layers.end(), layers / n);
    out.rule = fmt::format("{} layers per chunk", layers / n);
  } else {
    // Uneven: every chunk holds ceil(L / n) except that the shortfall is taken one layer at a
    // time from the first chunk, the last chunk (they also carry the embedding and the LM head,
    // as Megatron's account-for-embedding/loss split does), then from the middle outwards.
    const int top = (layers + n - 1) / n;
    int shortfall = top * n - layers;
    std::fill(out.chunk_layers.begin(), out.chunk_layers.end(), top);
    std::vector<int> order;
    order.push_back(0);
    if (n > 1) order.push_back(n - 1);
    for (int k = 1; k < n - 1; ++k) order.push_back(k);
    for (size_t i = 0; shortfall > 0; i = (i + 1) % order.size()) {
      if (out.chunk_layers[static_cast<size_t>(order[i])] > 1) {
        --out.chunk_layers[static_cast<size_t>(order[i])];
        --shortfall;
      }
    }
    out.rule = fmt::format(
        "{} layers per chunk, first and last chunks fewer ({} and {}) as Megatron-LM places "
        "the embedding and the loss there",
        top, out.chunk_layers.front(), out.chunk_layers.back());
  }
  // Stage totals and their dense / MoE mix: dense layers come first in model order.
  out.stages.assign(static_cast<size_t>(pp), StageLayers{});
  const int dense_total = layers - moe_layers;
  int start = 0;
  for (int k = 0; k < n; ++k) {
    const int len = out.chunk_layers[static_cast<size_t>(k)];
    if (len < 0 || (len == 0 && !(k == 0 || k == n - 1)))
      throw InfeasibleError(fmt::format("model chunk {} would hold {} layers", k, len));
    const int dense = std::clamp(dense_total - start, 0, len);
    StageLayers& st = out.stages[static_cast<size_t>(k % pp)];
    st.layers += len;
    st.dense += dense;
    st.moe += len - dense;
    start += len;
  }
  if (start != layers)
    throw InfeasibleError(fmt::format("the pipeline split places {} of {} layers", start, layers));
  for (int k = 1; k < n; ++k)
    if (out.chunk_layers[static_cast<size_t>(k)] != out.chunk_layers[0]) out.even = false;
  return out;
}

}  // namespace memwall::train
