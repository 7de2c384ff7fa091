// The deployment read from a pod's labels: the names the deploy emitter writes are the ones read
// (as Prometheus's pod discovery renames them), each label maps to a catalog id, a number or a
// precision, and what does not map is named with its reason, never guessed.
#include "memwall/monitor/label_deployment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "memwall/deploy/emit.h"

namespace memwall::monitor {
namespace {

bool has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(LabelDeployment, TheEmittersPodLabelsAreTheOnesRead) {
  EXPECT_EQ(prometheus_label_name("memwall.io/kv-precision"), "memwall_io_kv_precision");
  std::vector<std::string> emitted;
  for (const char* l : deploy::kDeploymentLabels) emitted.push_back(prometheus_label_name(l));
  EXPECT_EQ(emitted, deployment_label_names());
  for (const auto& name : emitted) EXPECT_EQ(name.rfind(kDeploymentLabelPrefix, 0), 0u) << name;
}

TEST(LabelDeployment, EachLabelMapsToACatalogIdANumberOrAPrecision) {
  const Catalog& c = Catalog::builtin();
  const DeploymentLabels labels = {{"memwall_io_model", {"llama-3.1-70b"}},
                                   {"memwall_io_accelerator", {"h100"}},
                                   {"memwall_io_tp", {"4"}},
                                   {"memwall_io_pp", {"2"}},
                                   {"memwall_io_weight_precision", {"fp8"}},
                                   {"memwall_io_kv_precision", {"bf16"}}};
  infer::DeploymentOptions base;
  base.engine = "vllm";
  const LabelDeployment d = deployment_from_labels(labels, {}, base, c);
  EXPECT_EQ(d.options.model, "llama-3.1-70b");
  EXPECT_EQ(d.options.gpu, "nvidia-h100-sxm");  // the alias resolved to the catalog id
  EXPECT_EQ(d.options.tp, 4);
  EXPECT_EQ(d.options.pp, 2);
  ASSERT_TRUE(d.options.weight_precision.has_value());
  ASSERT_TRUE(d.options.kv_precision.has_value());
  EXPECT_EQ(*d.options.kv_precision, Precision::bf16);
  EXPECT_EQ(d.options.engine, "vllm");  // the base's, untouched
  EXPECT_TRUE(d.unmapped.empty());
  EXPECT_TRUE(has(d.used, "accelerator nvidia-h100-sxm (memwall_io_accelerator=h100)"));
  EXPECT_EQ(d.used.size(), 6u);
}

TEST(LabelDeployment, TheEnginesModelNameMapsByIdOrHuggingFaceRepository) {
  const Catalog& c = Catalog::builtin();
  const auto hf = deployment_from_labels({}, {"meta-llama/Llama-3.1-8B-Instruct"}, {}, c);
  EXPECT_EQ(hf.options.model, "llama-3.1-8b");
  const auto served = deployment_from_labels({}, {"my-chatbot"}, {}, c);  // --served-model-name
  EXPECT_TRUE(served.options.model.empty());
  EXPECT_TRUE(has(served.unmapped,
                  "model_name='my-chatbot': no zoo model has that id or Hugging "
                  "Face repository"));
  // memwall_io_model wins, and a model_name that names another model is said.
  const auto both = deployment_from_labels({{"memwall_io_model", {"llama-3.1-70b"}}},
                                           {"meta-llama/Llama-3.1-8B-Instruct"}, {}, c);
  EXPECT_EQ(both.options.model, "llama-3.1-70b");
  EXPECT_TRUE(has(both.unmapped, "disagrees with memwall_io_model: memwall_io_model used"));
  const auto two = deployment_from_labels({}, {"a", "b"}, {}, c);
  EXPECT_TRUE(has(two.unmapped, "serve several models (a, b)"));
}

TEST(LabelDeployment, WhatDoesNotMapIsNamedAndLeftOut) {
  const Catalog& c = Catalog::builtin();
  const DeploymentLabels labels = {{"memwall_io_model", {"llama-9"}},
                                   {"memwall_io_accelerator", {"h100", "a100"}},
                                   {"memwall_io_tp", {"0"}},
                                   {"memwall_io_pp", {"99999"}},
                                   {"memwall_io_kv_precision", {"fp7"}},
                                   {"memwall_io_cluster", {"east"}}};
  const LabelDeployment d = deployment_from_labels(labels, {}, {}, c);
  EXPECT_TRUE(d.options.model.empty());
  EXPECT_TRUE(d.options.gpu.empty());
  EXPECT_EQ(d.options.tp, 1);
  EXPECT_EQ(d.options.pp, 1);
  EXPECT_FALSE(d.options.kv_precision.has_value());
  EXPECT_TRUE(d.used.empty());
  for (const char* reason :
       {"memwall_io_model='llama-9': no zoo model has that id",
        "memwall_io_accelerator: the pod's series disagree (a100, h100)",
        "memwall_io_tp='0': not a whole number from 1 to 1024",
        "memwall_io_pp='99999': not a whole number",
        "memwall_io_kv_precision='fp7': not a precision",
        "memwall_io_cluster='east': not a label memwall's deploy emitter writes"})
    EXPECT_TRUE(has(d.unmapped, reason)) << reason;
  EXPECT_EQ(d.unmapped.size(), 6u);
}

}  // namespace
}  // namespace memwall::monitor
