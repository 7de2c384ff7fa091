#include "memwall/model/zoo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "memwall/core/error.h"
#include "memwall/model/counts.h"

namespace memwall {
namespace {

std::string fixture(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "testdata" / name).string();
}

ModelSpec import_fixture(const std::string& name) {
  const std::string path = fixture(name);
  return import_hf_config(load_document(path), path);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Json minimal_entry() {
  return Json::parse(R"({"id": "tiny", "layers": 2, "hidden": 64, "heads": 4, "ffn": 256,
                         "vocab": 1000, "max_context": 128})");
}

// ---- memwall entries ----------------------------------------------------------------------

TEST(ModelFromJson, DefaultsAreDerivedFromShapes) {
  const ModelSpec m = model_from_json(minimal_entry(), "test");
  EXPECT_EQ(m.head_dim, 16);
  EXPECT_EQ(m.kv_heads, 4);
  EXPECT_EQ(m.attention, AttentionKind::mha);
  EXPECT_EQ(m.mlp, MlpKind::gated);
  EXPECT_EQ(m.name, "tiny");
  EXPECT_FALSE(m.is_moe());
  // 2 x (4*64^2 + 3*64*256 + 2*64) + 64 + 2*1000*64
  EXPECT_EQ(count_parameters(m).total, 2 * (4.0 * 64 * 64 + 3.0 * 64 * 256 + 128) + 64 + 128000);
}

TEST(ModelFromJson, AttentionKindFollowsKvHeads) {
  Json j = minimal_entry();
  j["kv_heads"] = 1;
  EXPECT_EQ(model_from_json(j, "t").attention, AttentionKind::mqa);
  j["kv_heads"] = 2;
  EXPECT_EQ(model_from_json(j, "t").attention, AttentionKind::gqa);
}

TEST(ModelFromJson, RoundTripsThroughModelToJson) {
  for (const char* name : {"deepseek-v3.config.json", "mixtral-8x7b.config.json",
                           "qwen2.5-72b.config.json", "llama-3.1-8b.config.json"}) {
    ModelSpec a = import_fixture(name);
    a.published_total_params = 1e9;
    const ModelSpec b = model_from_json(model_to_json(a), "roundtrip");
    EXPECT_EQ(model_to_json(b), model_to_json(a)) << name;
    EXPECT_EQ(count_parameters(b).total, count_parameters(a).total);
    EXPECT_EQ(kv_cache_elements_per_token(b), kv_cache_elements_per_token(a));
  }
}

TEST(ModelFromJson, ReadsYamlEntries) {
  const Json doc = parse_document(R"(
models:
  - id: my-moe
    layers: 4
    hidden: 512
    heads: 8
    kv_heads: 2
    ffn: 2048
    vocab: 32000
    max_context: 8192
    biases: {qkv: true}
    moe: {experts: 16, top_k: 2, expert_ffn: 256, shared_experts: 1, shared_expert_ffn: 512,
          first_dense_layers: 1}
)",
                                  "user.yaml");
  const ModelSpec m = model_from_json(doc.at("models").at(0), "user.yaml");
  EXPECT_EQ(m.attention, AttentionKind::gqa);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(3));
  const ParameterCounts c = count_parameters(m);
  const double expert = 3.0 * 512 * 256;
  EXPECT_EQ(c.routed_experts, 3 * 16 * expert);
  EXPECT_EQ(c.shared_experts, 3 * 3.0 * 512 * 512);
  EXPECT_EQ(c.total - c.active, 3 * 14 * expert);
}

TEST(ModelFromJson, RejectsBadInputNamingTheField) {
  Json j = minimal_entry();
  j["hiden"] = 64;
  EXPECT_NE(error_of([&] { model_from_json(j, "f.json"); }).find("hiden"), std::string::npos);

  j = minimal_entry();
  j.erase("hidden");
  EXPECT_NE(error_of([&] { model_from_json(j, "f.json"); }).find("'hidden' is missing"),
            std::string::npos);

  for (const Json& bad : {Json(0), Json(-4), Json(4096.5), Json("64"), Json(true), Json(2e7)}) {
    j = minimal_entry();
    j["hidden"] = bad;
    const std::string e = error_of([&] { model_from_json(j, "f.json"); });
    EXPECT_NE(e.find("hidden"), std::string::npos) << bad.dump();
  }
  j = minimal_entry();
  j["hidden"] = 64.0;  // an integral float is an integer
  EXPECT_EQ(model_from_json(j, "t").hidden, 64);

  j = minimal_entry();
  j["kv_heads"] = 3;  // 4 heads are not divisible into 3 groups
  EXPECT_NE(error_of([&] { model_from_json(j, "t"); }).find("multiple of kv_heads"),
            std::string::npos);

  j = minimal_entry();
  j["attention"] = "mha";
  j["kv_heads"] = 2;
  EXPECT_NE(error_of([&] { model_from_json(j, "t"); }).find("mha"), std::string::npos);

  j = minimal_entry();
  j["moe"] = {{"experts", 4}, {"top_k", 5}, {"expert_ffn", 128}};
  EXPECT_NE(error_of([&] { model_from_json(j, "t"); }).find("top_k"), std::string::npos);

  j = minimal_entry();
  j["attention"] = "mla";
  EXPECT_NE(error_of([&] { model_from_json(j, "t"); }).find("'mla' block"), std::string::npos);

  j = minimal_entry();
  j["mlp"] = "swiglu";
  EXPECT_NE(error_of([&] { model_from_json(j, "t"); }).find("gated, plain"), std::string::npos);

  j = minimal_entry();
  j["published_total_params"] = -1;
  EXPECT_FALSE(error_of([&] { model_from_json(j, "t"); }).empty());

  EXPECT_FALSE(error_of([&] { model_from_json(Json::array(), "t"); }).empty());
}

// ---- Hugging Face import ------------------------------------------------------------------

TEST(HfImport, Llama31_8b) {
  const ModelSpec m = import_fixture("llama-3.1-8b.config.json");
  EXPECT_EQ(m.family, "llama");
  EXPECT_EQ(m.attention, AttentionKind::gqa);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.max_context, 131072);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
  EXPECT_EQ(count_parameters(m).total, 8'030'261'248.0);  // published 8.03B
  EXPECT_EQ(m.id, "llama-3.1-8b.config");
}

TEST(HfImport, Qwen25_72bHasQkvBiases) {
  const ModelSpec m = import_fixture("qwen2.5-72b.config.json");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.out_bias);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();           // sliding window switched off
  EXPECT_NEAR(count_parameters(m).total, 72.7e9, 0.005 * 72.7e9);  // model card: 72.7B
  EXPECT_EQ(kv_cache_bytes_per_token(m, Precision::bf16).value(), 327'680.0);
}

TEST(HfImport, Mixtral8x7bIsMoe) {
  const ModelSpec m = import_fixture("mixtral-8x7b.config.json");
  ASSERT_TRUE(m.is_moe());
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.expert_ffn, 14336);
  EXPECT_EQ(m.moe.first_dense_layers, 0);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();  // sliding_window is null
  const ParameterCounts c = count_parameters(m);
  EXPECT_NEAR(c.total, 46.7e9, 0.005 * 46.7e9);
  EXPECT_NEAR(c.active, 12.9e9, 0.005 * 12.9e9);
}

TEST(HfImport, DeepSeekV3IsMlaMoe) {
  const ModelSpec m = import_fixture("deepseek-v3.config.json");
  EXPECT_EQ(m.attention, AttentionKind::mla);
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.mla.v_head_dim, 128);
  EXPECT_EQ(m.moe.experts, 256);
  EXPECT_EQ(m.moe.top_k, 8);
  EXPECT_EQ(m.moe.shared_experts, 1);
  EXPECT_EQ(m.moe.first_dense_layers, 3);
  EXPECT_TRUE(m.moe.router_bias);
  EXPECT_TRUE(m.is_moe_layer(3));
  EXPECT_FALSE(m.is_moe_layer(2));
  const ParameterCounts c = count_parameters(m);
  EXPECT_NEAR(c.total, 671e9, 0.005 * 671e9);
  EXPECT_EQ(kv_cache_bytes_per_token(m, Precision::bf16).value(), 70'272.0);
  // Named, not silently dropped: the MTP module and the FP8 quantisation.
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("num_nextn_predict_layers"), std::string::npos);
  EXPECT_NE(m.warnings[1].find("quantization_config"), std::string::npos);
  // weight_block_size [128, 128]: the checkpoint's FP8 is block-scaled, the default --fp8-recipe.
  ASSERT_TRUE(m.fp8_checkpoint.has_value());
  EXPECT_EQ(*m.fp8_checkpoint, Fp8Recipe::blockwise);
}

TEST(HfImport, UnknownFieldIsNamedInAWarning) {
  Json c = load_document(fixture("llama-3.1-8b.config.json"));
  c["frobnication_depth"] = 3;
  const ModelSpec m = import_hf_config(c, "x/config.json");
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("frobnication_depth"), std::string::npos);
  EXPECT_EQ(m.id, "x");
}

// A non-ASCII file name keeps its letters (only ASCII punctuation and spaces become '-').
TEST(HfImport, NonAsciiFileNameKeepsItsLetters) {
  const Json c = load_document(fixture("llama-3.1-8b.config.json"));
  EXPECT_EQ(import_hf_config(c, "dir/\u6a21\u578b A.json").id, "\u6a21\u578b-a");
  // Invalid UTF-8 in the name cannot reach JSON or Python text.
  EXPECT_EQ(import_hf_config(c, "dir/m\xff.json").id, "m\xef\xbf\xbd");
}

TEST(HfImport, MissingOrBadFieldsAreInputErrors) {
  Json c = load_document(fixture("llama-3.1-8b.config.json"));
  c.erase("hidden_size");
  const std::string e = error_of([&] { import_hf_config(c, "c.json"); });
  EXPECT_NE(e.find("hidden_size"), std::string::npos) << e;

  c = load_document(fixture("llama-3.1-8b.config.json"));
  c["model_type"] = "mamba";
  const std::string t = error_of([&] { import_hf_config(c, "c.json"); });
  EXPECT_NE(t.find("mamba"), std::string::npos);
  EXPECT_NE(t.find("deepseek_v3"), std::string::npos);  // the allowed list

  c.erase("model_type");
  EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find("model_type"), std::string::npos);

  for (const Json& bad : {Json(0), Json(-1), Json(3.5), Json(1e8), Json("4096"), Json(nullptr)}) {
    c = load_document(fixture("llama-3.1-8b.config.json"));
    c["hidden_size"] = bad;
    EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find("hidden_size"),
              std::string::npos)
        << bad.dump();
  }

  // Zero as parsed from text (an unsigned JSON number), not only as a C++ literal.
  for (const char* field : {"hidden_size", "num_hidden_layers", "num_attention_heads"}) {
    c = load_document(fixture("llama-3.1-8b.config.json"));
    c[field] = Json::parse("0");
    ASSERT_TRUE(c[field].is_number_unsigned());
    EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find(field), std::string::npos);
  }
  c = parse_document(R"({"model_type": "deepseek_v2", "num_hidden_layers": 27,
      "hidden_size": 2048, "num_attention_heads": 16, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
      "qk_nope_head_dim": 128, "v_head_dim": 128, "intermediate_size": 10944,
      "moe_intermediate_size": 1408, "n_routed_experts": 64, "num_experts_per_tok": 6,
      "first_k_dense_replace": 1, "moe_layer_freq": 0, "vocab_size": 102400,
      "max_position_embeddings": 163840})",
                     "fuzz-finding.json");
  EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find("moe_layer_freq"),
            std::string::npos);
  Json entry = minimal_entry();
  entry["layers"] = Json::parse("0");
  EXPECT_NE(error_of([&] { model_from_json(entry, "t"); }).find("layers"), std::string::npos);

  c = load_document(fixture("mixtral-8x7b.config.json"));
  c["num_experts_per_tok"] = 9;
  EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find("top_k"), std::string::npos);

  c = load_document(fixture("llama-3.1-8b.config.json"));
  c["num_key_value_heads"] = 5;
  EXPECT_NE(error_of([&] { import_hf_config(c, "c.json"); }).find("kv_heads"), std::string::npos);

  EXPECT_FALSE(error_of([&] { import_hf_config(Json::array(), "c.json"); }).empty());
}

TEST(HfImport, OtherFamiliesMapTheirFieldNames) {
  // GPT-2 small (openai-community/gpt2 config.json, shape fields).
  const Json gpt2 = Json::parse(R"({"model_type": "gpt2", "n_layer": 12, "n_embd": 768,
      "n_head": 12, "n_inner": null, "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257,
      "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})");
  const ModelSpec g = import_hf_config(gpt2, "gpt2/config.json");
  EXPECT_EQ(g.ffn, 3072);
  EXPECT_EQ(g.position, PositionKind::learned);
  EXPECT_TRUE(g.tied_embeddings);
  EXPECT_NEAR(count_parameters(g).total, 124'439'808.0, 1.0);  // GPT-2 small's 124M

  // OPT-125m: ffn_dim, enable_bias, tied.
  const Json opt = Json::parse(R"({"model_type": "opt", "num_hidden_layers": 12,
      "hidden_size": 768, "num_attention_heads": 12, "ffn_dim": 3072, "vocab_size": 50272,
      "max_position_embeddings": 2048, "word_embed_proj_dim": 768, "do_layer_norm_before": true,
      "enable_bias": true})");
  const ModelSpec o = import_hf_config(opt, "opt-125m/config.json");
  EXPECT_EQ(o.mlp, MlpKind::plain);
  EXPECT_TRUE(o.mlp_bias);
  EXPECT_TRUE(o.warnings.empty());

  // Qwen3-30B-A3B: qwen3_moe with head_dim and q/k norms.
  const Json q3 = Json::parse(R"({"model_type": "qwen3_moe", "num_hidden_layers": 48,
      "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
      "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128,
      "num_experts_per_tok": 8, "decoder_sparse_step": 1, "mlp_only_layers": [],
      "vocab_size": 151936, "max_position_embeddings": 40960, "tie_word_embeddings": false})");
  const ModelSpec q = import_hf_config(q3, "q/config.json");
  EXPECT_TRUE(q.qk_norm);
  const ParameterCounts qc = count_parameters(q);
  EXPECT_NEAR(qc.total, 30.5e9, 0.005 * 30.5e9);
  EXPECT_EQ(qc.total, 30'532'122'624.0);

  // qwen2_moe with decoder_sparse_step 2: layers 1, 3, 5 ... are sparse.
  Json q2 = Json::parse(R"({"model_type": "qwen2_moe", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 256,
      "moe_intermediate_size": 32, "shared_expert_intermediate_size": 128, "num_experts": 8,
      "num_experts_per_tok": 2, "decoder_sparse_step": 2, "vocab_size": 100,
      "max_position_embeddings": 64})");
  const ModelSpec q2m = import_hf_config(q2, "q2/config.json");
  EXPECT_FALSE(q2m.is_moe_layer(0));
  EXPECT_TRUE(q2m.is_moe_layer(1));
  EXPECT_FALSE(q2m.is_moe_layer(2));
  EXPECT_TRUE(q2m.is_moe_layer(3));
  EXPECT_EQ(q2m.moe.shared_experts, 1);
  q2["mlp_only_layers"] = {3};
  q2["decoder_sparse_step"] = 1;
  EXPECT_FALSE(error_of([&] { import_hf_config(q2, "q2/config.json"); }).empty());
}

}  // namespace
}  // namespace memwall
