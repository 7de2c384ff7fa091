#include "memwall/train/framework.h"

#include "memwall/core/document.h"
#include "memwall/core/embedded.h"
#include "memwall/core/error.h"
#include "memwall/perf/efficiency.h"

namespace memwall::train {

const std::vector<Framework>& training_frameworks() {
  static const std::vector<Framework> all = [] {
    std::vector<Framework> out;
    for (const auto& f : data::embedded_files()) {
      if (f.path != "frameworks/training.json") continue;
      const Json doc = parse_document(f.content, std::string(f.path));
      for (const Json& e : doc.at("frameworks")) {
        Framework w;
        w.id = e.at("id").get<std::string>();
        w.name = e.at("name").get<std::string>();
        w.fused_elementwise = e.at("fused_elementwise").get<bool>();
        w.fused_optimizer = e.value("fused_optimizer", true);
        w.bf16_grad_accumulation_pass = e.value("bf16_grad_accumulation_pass", false);
        w.flash_attention_version = e.at("flash_attention_version").get<int>();
        w.distributed_optimizer = e.at("distributed_optimizer").get<bool>();
        w.fsdp = e.at("fsdp").get<bool>();
        w.sequence_parallel_with_tp = e.at("sequence_parallel_with_tp").get<bool>();
        w.overlap_grad_reduce = e.at("overlap_grad_reduce").get<bool>();
        w.overlap_param_gather = e.at("overlap_param_gather").get<bool>();
        w.overlap_tp_comm = e.at("overlap_tp_comm").get<bool>();
        w.zero3_collectives_per_layer = e.at("zero3_collectives_per_layer").get<int>();
        w.efficiency = e.at("efficiency").get<std::string>();
        w.sources = e.at("sources").get<std::vector<std::string>>();
        out.push_back(std::move(w));
      }
    }
    return out;
  }();
  return all;
}

const Framework& training_framework(std::string_view id, const std::string& field) {
  std::vector<std::string> known;
  for (const Framework& f : training_frameworks()) {
    if (f.id == id) return f;
    known.push_back(f.id);
  }
  throw InputError::unknown_name(field, std::string(id), known);
}

TrainParameters framework_parameters(TrainParameters base, const perf::Efficiency* efficiency,
                                     std::string_view framework) {
  const perf::FrameworkCalibration* f = efficiency ? efficiency->framework(framework) : nullptr;
  if (!f) return base;
  if (f->compute_in_situ_fraction) base.gemm_in_situ_fraction = *f->compute_in_situ_fraction;
  if (f->overlap_efficiency) base.overlap_efficiency = *f->overlap_efficiency;
  if (f->step_overhead_ms) base.step_overhead = ms(*f->step_overhead_ms);
  return base;
}

}  // namespace memwall::train
