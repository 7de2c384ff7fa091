#include "memwall/model/zoo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "memwall/core/error.h"
#include "memwall/core/text.h"

namespace memwall {
namespace {

// Bounds that reject absurd shapes (typos, hostile input) while admitting every published model:
// the largest published hidden size is 25,600 (Megatron 1T), vocabularies reach 256K, contexts 10M.
constexpr int64_t kMaxLayers = 10'000;
constexpr int64_t kMaxWidth = 10'000'000;  // hidden, ffn, expert ffn, head and LoRA dims
constexpr int64_t kMaxHeads = 100'000;
constexpr int64_t kMaxVocab = 100'000'000;
constexpr int64_t kMaxContext = 1'000'000'000;
constexpr int64_t kMaxExperts = 100'000;

// User text echoed in a message: one line, bounded, printable (keys of hostile files can be
// anything).
std::string shown(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 80)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (text.size() > 80) out += "...";
  return out;
}

std::string field_name(const std::string& where, const std::string& key) {
  return where + ": " + key;
}

// An integer-valued JSON number in [lo, hi]; floats with a fractional part, booleans, strings are
// rejected with a message naming the field.
int64_t as_integer(const Json& v, const std::string& where, const std::string& key, int64_t lo,
                   int64_t hi) {
  const std::string allowed = fmt::format("an integer from {} to {}", lo, hi);
  if (!v.is_number()) throw InputError(field_name(where, key), v.dump(), allowed);
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) {
      const auto u = v.get<uint64_t>();
      // Parsed non-negative integers are unsigned: check both bounds here too (fuzzing found
      // "moe_layer_freq": 0 passing as unsigned and dividing by zero).
      if (u > static_cast<uint64_t>(hi) || static_cast<int64_t>(u) < lo)
        throw InputError(field_name(where, key), v.dump(), allowed);
      return static_cast<int64_t>(u);
    }
    const auto i = v.get<int64_t>();
    if (i < lo || i > hi) throw InputError(field_name(where, key), v.dump(), allowed);
    return i;
  }
  const double x = v.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < static_cast<double>(lo) ||
      x > static_cast<double>(hi))
    throw InputError(field_name(where, key), v.dump(), allowed);
  return static_cast<int64_t>(x);
}

bool has(const Json& obj, const std::string& key) {
  return obj.contains(key) && !obj.at(key).is_null();
}

int64_t get_integer(const Json& obj, const std::string& key, const std::string& where, int64_t lo,
                    int64_t hi) {
  if (!has(obj, key))
    throw InputError(fmt::format("{}: required field '{}' is missing", where, key));
  return as_integer(obj.at(key), where, key, lo, hi);
}

int64_t get_integer_or(const Json& obj, const std::string& key, const std::string& where,
                       int64_t lo, int64_t hi, int64_t fallback) {
  return has(obj, key) ? as_integer(obj.at(key), where, key, lo, hi) : fallback;
}

int narrow(int64_t v) {
  return static_cast<int>(v);
}  // callers bound v well inside int

bool get_bool_or(const Json& obj, const std::string& key, const std::string& where, bool fallback) {
  if (!has(obj, key)) return fallback;
  const Json& v = obj.at(key);
  if (!v.is_boolean()) throw InputError(field_name(where, key), v.dump(), "true or false");
  return v.get<bool>();
}

std::string get_string_or(const Json& obj, const std::string& key, const std::string& where,
                          const std::string& fallback) {
  if (!has(obj, key)) return fallback;
  const Json& v = obj.at(key);
  if (!v.is_string()) throw InputError(field_name(where, key), v.dump(), "a string");
  return v.get<std::string>();
}

std::optional<double> get_count_or_none(const Json& obj, const std::string& key,
                                        const std::string& where) {
  if (!has(obj, key)) return std::nullopt;
  const Json& v = obj.at(key);
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e16)
    throw InputError(field_name(where, key), v.dump(), "a parameter count > 0 and <= 1e16");
  return v.get<double>();
}

template <class Enum>
struct EnumName {
  Enum value;
  const char* name;
};

constexpr EnumName<AttentionKind> kAttentionNames[] = {{AttentionKind::mha, "mha"},
                                                       {AttentionKind::gqa, "gqa"},
                                                       {AttentionKind::mqa, "mqa"},
                                                       {AttentionKind::mla, "mla"}};
constexpr EnumName<MlpKind> kMlpNames[] = {{MlpKind::gated, "gated"}, {MlpKind::plain, "plain"}};
constexpr EnumName<NormKind> kNormNames[] = {{NormKind::rmsnorm, "rmsnorm"},
                                             {NormKind::layernorm, "layernorm"}};
constexpr EnumName<PositionKind> kPositionNames[] = {{PositionKind::rope, "rope"},
                                                     {PositionKind::learned, "learned"},
                                                     {PositionKind::alibi, "alibi"}};

template <class Enum, size_t N>
const char* enum_name(const EnumName<Enum> (&table)[N], Enum v) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}

template <class Enum, size_t N>
std::optional<Enum> get_enum(const Json& obj, const std::string& key, const std::string& where,
                             const EnumName<Enum> (&table)[N]) {
  if (!has(obj, key)) return std::nullopt;
  const std::string s = get_string_or(obj, key, where, "");
  std::vector<std::string> names;
  for (const auto& e : table) {
    if (s == e.name) return e.value;
    names.push_back(e.name);
  }
  throw InputError(field_name(where, key), s, fmt::format("{}", fmt::join(names, ", ")));
}

void reject_unknown_fields(const Json& obj, const std::string& where,
                           const std::vector<std::string>& known) {
  if (!obj.is_object()) throw InputError(fmt::format("{}: expected an object", where));
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const auto near = nearest_names(key, known, 1);
      throw InputError(
          fmt::format("{}: unknown field '{}'{}; known fields: {}", where, shown(key),
                      near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near[0]),
                      fmt::join(known, ", ")));
    }
  }
}

AttentionKind attention_from_heads(int heads, int kv_heads) {
  if (kv_heads == heads) return AttentionKind::mha;
  if (kv_heads == 1) return AttentionKind::mqa;
  return AttentionKind::gqa;
}

// Structural checks shared by both readers; the message names the model and the numbers.
void validate(const ModelSpec& m, const std::string& where) {
  if (m.attention == AttentionKind::mla) {
    const MlaSpec& a = m.mla;
    if (a.kv_lora_rank <= 0 || a.v_head_dim <= 0 || a.qk_nope_head_dim + a.qk_rope_head_dim <= 0)
      throw InputError(fmt::format(
          "{}: MLA attention needs kv_lora_rank > 0, v_head_dim > 0 and qk_nope_head_dim + "
          "qk_rope_head_dim > 0 (got {}, {}, {} + {})",
          where, a.kv_lora_rank, a.v_head_dim, a.qk_nope_head_dim, a.qk_rope_head_dim));
  } else {
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
      throw InputError(fmt::format(
          "{}: heads ({}) must be a multiple of kv_heads ({}) for grouped-query attention", where,
          m.heads, m.kv_heads));
    if (m.attention == AttentionKind::mha && m.kv_heads != m.heads)
      throw InputError(fmt::format("{}: attention 'mha' needs kv_heads == heads ({} != {})", where,
                                   m.kv_heads, m.heads));
    if (m.attention == AttentionKind::mqa && m.kv_heads != 1)
      throw InputError(
          fmt::format("{}: attention 'mqa' needs kv_heads == 1 (got {})", where, m.kv_heads));
  }
  const bool all_layers_moe =
      m.is_moe() && m.moe.first_dense_layers == 0 && m.moe.layer_frequency == 1;
  if (m.ffn <= 0 && !all_layers_moe)
    throw InputError(fmt::format("{}: ffn must be > 0 (the model has dense MLP layers)", where));
  if (m.is_moe()) {
    const MoeSpec& e = m.moe;
    if (e.top_k < 1 || e.top_k > e.experts)
      throw InputError(fmt::format("{}: moe top_k ({}) must be between 1 and experts ({})", where,
                                   e.top_k, e.experts));
    if (e.expert_ffn <= 0) throw InputError(fmt::format("{}: moe expert_ffn must be > 0", where));
    if (e.shared_experts > 0 && e.shared_expert_ffn <= 0)
      throw InputError(fmt::format("{}: moe shared_expert_ffn must be > 0 with {} shared experts",
                                   where, e.shared_experts));
    if (e.first_dense_layers >= m.layers)
      throw InputError(fmt::format("{}: moe first_dense_layers ({}) leaves no MoE layer of {}",
                                   where, e.first_dense_layers, m.layers));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// memwall's own model entries

ModelSpec model_from_json(const Json& entry, const std::string& where_in) {
  std::string where = where_in;
  if (entry.is_object() && entry.contains("id") && entry.at("id").is_string())
    where = fmt::format("{} model '{}'", where_in, shown(entry.at("id").get<std::string>()));
  reject_unknown_fields(entry, where,
                        {"id",
                         "name",
                         "family",
                         "layers",
                         "hidden",
                         "heads",
                         "kv_heads",
                         "head_dim",
                         "ffn",
                         "vocab",
                         "max_context",
                         "attention",
                         "mlp",
                         "norm",
                         "position",
                         "tied_embeddings",
                         "biases",
                         "qk_norm",
                         "moe",
                         "mla",
                         "fp8_checkpoint",
                         "hf_repos",
                         "published_total_params",
                         "published_active_params",
                         "source",
                         "notes"});

  ModelSpec m;
  m.id = get_string_or(entry, "id", where, "");
  if (m.id.empty()) throw InputError(fmt::format("{}: required field 'id' is missing", where));
  m.name = get_string_or(entry, "name", where, m.id);
  m.family = get_string_or(entry, "family", where, "");
  m.layers = narrow(get_integer(entry, "layers", where, 1, kMaxLayers));
  m.hidden = get_integer(entry, "hidden", where, 1, kMaxWidth);
  m.heads = narrow(get_integer(entry, "heads", where, 1, kMaxHeads));
  m.kv_heads = narrow(get_integer_or(entry, "kv_heads", where, 1, kMaxHeads, m.heads));
  if (has(entry, "head_dim")) {
    m.head_dim = narrow(get_integer(entry, "head_dim", where, 1, kMaxWidth));
  } else {
    if (m.hidden % m.heads != 0)
      throw InputError(
          fmt::format("{}: hidden ({}) is not divisible by heads ({}); give head_dim explicitly",
                      where, m.hidden, m.heads));
    m.head_dim = narrow(m.hidden / m.heads);
  }
  m.ffn = get_integer_or(entry, "ffn", where, 0, kMaxWidth, 0);
  m.vocab = get_integer(entry, "vocab", where, 1, kMaxVocab);
  m.max_context = get_integer(entry, "max_context", where, 1, kMaxContext);
  m.mlp = get_enum(entry, "mlp", where, kMlpNames).value_or(MlpKind::gated);
  m.norm = get_enum(entry, "norm", where, kNormNames).value_or(NormKind::rmsnorm);
  m.position = get_enum(entry, "position", where, kPositionNames).value_or(PositionKind::rope);
  m.tied_embeddings = get_bool_or(entry, "tied_embeddings", where, false);
  m.qk_norm = get_bool_or(entry, "qk_norm", where, false);

  if (has(entry, "biases")) {
    const Json& b = entry.at("biases");
    const std::string bw = where + " biases";
    reject_unknown_fields(b, bw, {"qkv", "out", "mlp"});
    m.qkv_bias = get_bool_or(b, "qkv", bw, false);
    m.out_bias = get_bool_or(b, "out", bw, false);
    m.mlp_bias = get_bool_or(b, "mlp", bw, false);
  }

  if (has(entry, "moe")) {
    const Json& j = entry.at("moe");
    const std::string mw = where + " moe";
    reject_unknown_fields(j, mw,
                          {"experts", "top_k", "shared_experts", "expert_ffn", "shared_expert_ffn",
                           "first_dense_layers", "layer_frequency", "router_bias"});
    MoeSpec& e = m.moe;
    e.experts = narrow(get_integer(j, "experts", mw, 1, kMaxExperts));
    e.top_k = narrow(get_integer(j, "top_k", mw, 1, kMaxExperts));
    e.expert_ffn = get_integer(j, "expert_ffn", mw, 1, kMaxWidth);
    e.shared_experts = narrow(get_integer_or(j, "shared_experts", mw, 0, kMaxExperts, 0));
    e.shared_expert_ffn = get_integer_or(j, "shared_expert_ffn", mw, 0, kMaxWidth, 0);
    e.first_dense_layers = narrow(get_integer_or(j, "first_dense_layers", mw, 0, kMaxLayers, 0));
    e.layer_frequency = narrow(get_integer_or(j, "layer_frequency", mw, 1, kMaxLayers, 1));
    e.router_bias = get_bool_or(j, "router_bias", mw, false);
  }

  const auto attention = get_enum(entry, "attention", where, kAttentionNames);
  if (has(entry, "mla")) {
    if (attention && *attention != AttentionKind::mla)
      throw InputError(fmt::format("{}: an 'mla' block needs attention 'mla' (got '{}')", where,
                                   enum_name(kAttentionNames, *attention)));
    const Json& j = entry.at("mla");
    const std::string aw = where + " mla";
    reject_unknown_fields(
        j, aw,
        {"q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"});
    MlaSpec& a = m.mla;
    a.q_lora_rank = narrow(get_integer_or(j, "q_lora_rank", aw, 0, kMaxWidth, 0));
    a.kv_lora_rank = narrow(get_integer(j, "kv_lora_rank", aw, 1, kMaxWidth));
    a.qk_rope_head_dim = narrow(get_integer(j, "qk_rope_head_dim", aw, 0, kMaxWidth));
    a.qk_nope_head_dim = narrow(get_integer(j, "qk_nope_head_dim", aw, 0, kMaxWidth));
    a.v_head_dim = narrow(get_integer(j, "v_head_dim", aw, 1, kMaxWidth));
    m.attention = AttentionKind::mla;
  } else if (attention == AttentionKind::mla) {
    throw InputError(fmt::format("{}: attention 'mla' needs an 'mla' block", where));
  } else {
    m.attention = attention.value_or(attention_from_heads(m.heads, m.kv_heads));
  }

  if (has(entry, "fp8_checkpoint"))
    m.fp8_checkpoint = parse_fp8_recipe(get_string_or(entry, "fp8_checkpoint", where, ""),
                                        where + " fp8_checkpoint");
  if (has(entry, "hf_repos")) {
    const Json& repos = entry.at("hf_repos");
    const std::string field = where + " hf_repos";
    if (!repos.is_array()) throw InputError(field, repos.dump(), "a list of \"org/name\" strings");
    for (const Json& r : repos) {
      const std::string s = r.is_string() ? r.get<std::string>() : std::string();
      const size_t slash = s.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() ||
          s.find('/', slash + 1) != std::string::npos)
        throw InputError(field, r.dump(), "Hugging Face repository ids \"org/name\"");
      m.hf_repos.push_back(s);
    }
  }
  m.published_total_params = get_count_or_none(entry, "published_total_params", where);
  m.published_active_params = get_count_or_none(entry, "published_active_params", where);
  m.source = get_string_or(entry, "source", where, "");
  (void)get_string_or(entry, "notes", where, "");  // free text for readers of the data file
  validate(m, where);
  return m;
}

Json model_to_json(const ModelSpec& m) {
  Json j = {{"id", m.id},
            {"name", m.name},
            {"family", m.family},
            {"layers", m.layers},
            {"hidden", m.hidden},
            {"heads", m.heads},
            {"kv_heads", m.kv_heads},
            {"head_dim", m.head_dim},
            {"ffn", m.ffn},
            {"vocab", m.vocab},
            {"max_context", m.max_context},
            {"attention", enum_name(kAttentionNames, m.attention)},
            {"mlp", enum_name(kMlpNames, m.mlp)},
            {"norm", enum_name(kNormNames, m.norm)},
            {"position", enum_name(kPositionNames, m.position)},
            {"tied_embeddings", m.tied_embeddings},
            {"biases", {{"qkv", m.qkv_bias}, {"out", m.out_bias}, {"mlp", m.mlp_bias}}},
            {"qk_norm", m.qk_norm}};
  if (m.is_moe()) {
    j["moe"] = {{"experts", m.moe.experts},
                {"top_k", m.moe.top_k},
                {"shared_experts", m.moe.shared_experts},
                {"expert_ffn", m.moe.expert_ffn},
                {"shared_expert_ffn", m.moe.shared_expert_ffn},
                {"first_dense_layers", m.moe.first_dense_layers},
                {"layer_frequency", m.moe.layer_frequency},
                {"router_bias", m.moe.router_bias}};
  }
  if (m.attention == AttentionKind::mla) {
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  }
  if (m.fp8_checkpoint) j["fp8_checkpoint"] = std::string(to_string(*m.fp8_checkpoint));
  if (!m.hf_repos.empty()) j["hf_repos"] = m.hf_repos;
  if (m.published_total_params) j["published_total_params"] = *m.published_total_params;
  if (m.published_active_params) j["published_active_params"] = *m.published_active_params;
  j["source"] = m.source;
  return j;
}

// ---------------------------------------------------------------------------------------------
// Hugging Face config.json

namespace {

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> types = {
      "llama",       "mistral",     "qwen2",    "qwen3", "qwen2_moe", "qwen3_moe", "mixtral",
      "deepseek_v2", "deepseek_v3", "gpt_neox", "gpt2",  "opt",       "gemma",     "gemma2"};
  return types;
}

// Fields that describe training, tokenisation, numerics or runtime and do not change the shapes
// memwall needs: understood, and deliberately ignored.
const std::set<std::string>& irrelevant_fields() {
  static const std::set<std::string> s = {"_name_or_path",
                                          "architectures",
                                          "auto_map",
                                          "torch_dtype",
                                          "dtype",
                                          "transformers_version",
                                          "bos_token_id",
                                          "eos_token_id",
                                          "pad_token_id",
                                          "sep_token_id",
                                          "decoder_start_token_id",
                                          "prefix",
                                          "model_type",
                                          "hidden_act",
                                          "hidden_activation",
                                          "activation_function",
                                          "initializer_range",
                                          "init_std",
                                          "initializer_factor",
                                          "rms_norm_eps",
                                          "layer_norm_eps",
                                          "layer_norm_epsilon",
                                          "rope_theta",
                                          "rope_scaling",
                                          "rope_parameters",
                                          "rotary_emb_base",
                                          "partial_rotary_factor",
                                          "use_cache",
                                          "attention_dropout",
                                          "hidden_dropout",
                                          "hidden_dropout_prob",
                                          "attention_probs_dropout_prob",
                                          "dropout",
                                          "activation_dropout",
                                          "embd_pdrop",
                                          "attn_pdrop",
                                          "resid_pdrop",
                                          "summary_type",
                                          "summary_use_proj",
                                          "summary_activation",
                                          "summary_proj_to_labels",
                                          "summary_first_dropout",
                                          "task_specific_params",
                                          "scale_attn_weights",
                                          "scale_attn_by_inverse_layer_idx",
                                          "reorder_and_upcast_attn",
                                          "pretraining_tp",
                                          "output_router_logits",
                                          "router_aux_loss_coef",
                                          "router_jitter_noise",
                                          "aux_loss_alpha",
                                          "seq_aux",
                                          "norm_topk_prob",
                                          "routed_scaling_factor",
                                          "scoring_func",
                                          "topk_method",
                                          "n_group",
                                          "topk_group",
                                          "ep_size",
                                          "layerdrop",
                                          "use_sliding_window",
                                          "max_window_layers",
                                          "attn_logit_softcapping",
                                          "final_logit_softcapping",
                                          "query_pre_attn_scalar",
                                          "cache_implementation",
                                          "do_layer_norm_before",
                                          "_remove_final_layer_norm",
                                          "use_parallel_residual",
                                          "rotary_pct",
                                          "classifier_dropout",
                                          "is_decoder",
                                          "tokenizer_class",
                                          "use_bfloat16",
                                          "n_ctx",
                                          "head_dim_original",
                                          "quantization_config",
                                          "sliding_window",
                                          "num_nextn_predict_layers",
                                          "qkv_bias",
                                          "tie_word_embeddings",
                                          "attention_bias",
                                          "mlp_bias",
                                          "enable_bias",
                                          "attention_multiplier"};
  return s;
}

struct HfReader {
  const Json& config;
  std::string where;
  std::set<std::string> used;

  bool present(const std::string& key) const { return has(config, key); }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi) {
    used.insert(key);
    return get_integer(config, key, where, lo, hi);
  }
  int64_t integer_or(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) {
    used.insert(key);
    return get_integer_or(config, key, where, lo, hi, fallback);
  }
  // The first present key of `keys` (model types spell the same field differently).
  int64_t integer_any(const std::vector<std::string>& keys, int64_t lo, int64_t hi) {
    for (const auto& k : keys)
      if (present(k)) return integer(k, lo, hi);
    throw InputError(fmt::format("{}: required field '{}' is missing", where, keys.front()));
  }
  bool boolean_or(const std::string& key, bool fallback) {
    used.insert(key);
    return get_bool_or(config, key, where, fallback);
  }
};

std::string id_from_origin(const Json& config, const std::string& origin) {
  std::string name;
  if (has(config, "_name_or_path") && config.at("_name_or_path").is_string())
    name = config.at("_name_or_path").get<std::string>();
  if (name.empty()) {
    std::string path = origin;
    const auto slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base == "config.json" && slash != std::string::npos && slash > 0) {
      path = path.substr(0, slash);
      const auto s2 = path.find_last_of('/');
      base = s2 == std::string::npos ? path : path.substr(s2 + 1);
    } else if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) {
      base = base.substr(0, base.size() - 5);
    }
    name = base;
  } else {
    const auto slash = name.find_last_of('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
  }
  // ASCII punctuation and spaces become '-'; bytes of non-ASCII letters pass, then the whole is made
  // valid UTF-8 (the 100-byte cut may split a character).
  std::string id;
  for (char c : name.substr(0, 100)) {
    const auto u = static_cast<unsigned char>(c);
    id += u >= 0x80 ? c
                    : static_cast<char>(std::isalnum(u) || c == '.' || c == '-' || c == '_'
                                            ? std::tolower(u)
                                            : '-');
  }
  return id.empty() ? "imported" : to_valid_utf8(id);
}

// MoE layer placement: HF qwen2_moe/qwen3_moe make layer i sparse when (i+1) % step == 0 and i is
// not in mlp_only_layers; memwall's MoeSpec expresses this as first_dense_layers = step-1,
// layer_frequency = step. Leading mlp_only_layers become first_dense_layers (step 1 only).
void qwen_moe_layers(HfReader& r, const std::string& type, MoeSpec& e, int layers) {
  const int step = narrow(r.integer_or("decoder_sparse_step", 1, kMaxLayers, 1));
  int leading_dense = 0;
  r.used.insert("mlp_only_layers");
  if (r.present("mlp_only_layers")) {
    const Json& list = r.config.at("mlp_only_layers");
    if (!list.is_array())
      throw InputError(field_name(r.where, "mlp_only_layers"), list.dump(),
                       "a list of layer indices");
    for (size_t i = 0; i < list.size(); ++i) {
      const int64_t idx = as_integer(list[i], r.where, "mlp_only_layers", 0, layers - 1);
      if (idx != static_cast<int64_t>(i))
        throw InputError(fmt::format(
            "{}: mlp_only_layers {} is not a leading run 0..k-1; memwall models dense layers only "
            "at the start of the stack",
            r.where, list.dump()));
    }
    leading_dense = narrow(static_cast<int64_t>(list.size()));
  }
  if (leading_dense > 0 && step != 1)
    throw InputError(
        fmt::format("{}: {} with both mlp_only_layers and decoder_sparse_step {} is not supported",
                    r.where, type, step));
  e.first_dense_layers = leading_dense > 0 ? leading_dense : step - 1;
  e.layer_frequency = step;
}

}  // namespace

ModelSpec import_hf_config(const Json& config, const std::string& origin) {
  if (!config.is_object())
    throw InputError(fmt::format("{}: a Hugging Face config.json must be a JSON object", origin));
  HfReader r{config, origin, {}};
  if (!has(config, "model_type") || !config.at("model_type").is_string())
    throw InputError(fmt::format("{}: required field 'model_type' is missing; supported: {}",
                                 origin, fmt::join(supported_model_types(), ", ")));
  const std::string type = config.at("model_type").get<std::string>();
  const auto& types = supported_model_types();
  if (std::find(types.begin(), types.end(), type) == types.end())
    throw InputError(field_name(origin, "model_type"), type,
                     fmt::format("{}", fmt::join(types, ", ")));
  r.where = fmt::format("{} ({})", origin, type);

  ModelSpec m;
  m.id = id_from_origin(config, origin);
  m.name = m.id;
  m.family = type;
  m.source = origin;

  const bool gpt2 = type == "gpt2";
  const bool opt = type == "opt";
  const bool neox = type == "gpt_neox";
  const bool gemma = type == "gemma" || type == "gemma2";
  const bool deepseek = type == "deepseek_v2" || type == "deepseek_v3";
  const bool qwen3 = type == "qwen3" || type == "qwen3_moe";

  m.layers = narrow(r.integer_any({"num_hidden_layers", "n_layer"}, 1, kMaxLayers));
  m.hidden = r.integer_any({"hidden_size", "n_embd"}, 1, kMaxWidth);
  m.heads = narrow(r.integer_any({"num_attention_heads", "n_head"}, 1, kMaxHeads));
  m.kv_heads = narrow(r.integer_or("num_key_value_heads", 1, kMaxHeads, m.heads));
  if (r.present("head_dim") && !deepseek) {
    m.head_dim = narrow(r.integer("head_dim", 1, kMaxWidth));
  } else {
    if (m.hidden % m.heads != 0)
      throw InputError(fmt::format("{}: hidden size {} is not divisible by {} attention heads",
                                   r.where, m.hidden, m.heads));
    m.head_dim = narrow(m.hidden / m.heads);
  }
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  if (gpt2) {
    m.max_context = r.present("n_positions") ? r.integer("n_positions", 1, kMaxContext)
                                             : r.integer("n_ctx", 1, kMaxContext);
    // n_inner null means 4 x n_embd (GPT2Config).
    m.ffn = r.integer_or("n_inner", 1, kMaxWidth, 4 * m.hidden);
  } else {
    m.max_context = r.integer("max_position_embeddings", 1, kMaxContext);
    if (opt) {
      m.ffn = r.integer("ffn_dim", 1, kMaxWidth);
    } else if (type == "qwen3_moe" && !r.present("intermediate_size")) {
      m.ffn = 0;  // every layer sparse; validated below
    } else {
      m.ffn = r.integer("intermediate_size", 1, kMaxWidth);
    }
  }

  // Architecture family defaults (each model type's HF modelling code).
  if (gpt2 || opt || neox) {
    m.mlp = MlpKind::plain;
    m.norm = NormKind::layernorm;
    m.position = neox ? PositionKind::rope : PositionKind::learned;
    const bool bias = opt    ? r.boolean_or("enable_bias", true)
                      : neox ? r.boolean_or("attention_bias", true)
                             : true;
    m.qkv_bias = m.out_bias = m.mlp_bias = bias;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", !neox);
    if (opt && r.present("word_embed_proj_dim") &&
        r.integer("word_embed_proj_dim", 1, kMaxWidth) != m.hidden)
      throw InputError(fmt::format(
          "{}: word_embed_proj_dim differs from hidden_size (OPT-350m style projection) and is "
          "not supported",
          r.where));
    r.used.insert("word_embed_proj_dim");
  } else {
    m.mlp = MlpKind::gated;
    m.norm = NormKind::rmsnorm;
    m.position = PositionKind::rope;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", gemma);
    // Qwen2 and Qwen2-MoE always carry q/k/v biases (no config switch).
    const bool qkv_default = type == "qwen2" || type == "qwen2_moe";
    const bool attention_bias = r.boolean_or("attention_bias", qkv_default);
    m.qkv_bias = attention_bias || qkv_default;
    m.out_bias = attention_bias && (type == "llama" || type == "qwen3" || type == "qwen3_moe" ||
                                    gemma || type == "mistral");
    m.mlp_bias = r.boolean_or("mlp_bias", false);
    m.qk_norm = qwen3;
  }

  // Mixture of experts.
  if (type == "mixtral") {
    m.moe.experts = narrow(r.integer("num_local_experts", 1, kMaxExperts));
    m.moe.top_k = narrow(r.integer("num_experts_per_tok", 1, kMaxExperts));
    m.moe.expert_ffn = m.ffn;
  } else if (type == "qwen2_moe" || type == "qwen3_moe") {
    m.moe.experts = narrow(r.integer("num_experts", 1, kMaxExperts));
    m.moe.top_k = narrow(r.integer("num_experts_per_tok", 1, kMaxExperts));
    m.moe.expert_ffn = r.integer("moe_intermediate_size", 1, kMaxWidth);
    if (type == "qwen2_moe") {
      // One shared expert of shared_expert_intermediate_size (Qwen2MoeSparseMoeBlock).
      m.moe.shared_expert_ffn = r.integer_or("shared_expert_intermediate_size", 0, kMaxWidth, 0);
      m.moe.shared_experts = m.moe.shared_expert_ffn > 0 ? 1 : 0;
    }
    qwen_moe_layers(r, type, m.moe, m.layers);
  } else if (deepseek) {
    if (r.present("n_routed_experts")) {
      m.moe.experts = narrow(r.integer("n_routed_experts", 1, kMaxExperts));
      m.moe.top_k = narrow(r.integer("num_experts_per_tok", 1, kMaxExperts));
      m.moe.expert_ffn = r.integer("moe_intermediate_size", 1, kMaxWidth);
      m.moe.shared_experts = narrow(r.integer_or("n_shared_experts", 0, kMaxExperts, 0));
      m.moe.shared_expert_ffn = m.moe.shared_experts > 0 ? m.moe.expert_ffn : 0;
      m.moe.first_dense_layers = narrow(r.integer_or("first_k_dense_replace", 0, kMaxLayers, 0));
      // HF DeepseekV3: layer i is sparse when i >= first_k_dense_replace and i % freq == 0.
      const int freq = narrow(r.integer_or("moe_layer_freq", 1, kMaxLayers, 1));
      if (m.moe.first_dense_layers % freq != 0)
        throw InputError(fmt::format(
            "{}: moe_layer_freq {} with first_k_dense_replace {} is not supported (needs the "
            "first sparse layer to be a multiple of the frequency)",
            r.where, freq, m.moe.first_dense_layers));
      m.moe.layer_frequency = freq;
      // noaux_tc routing adds a per-expert score-correction bias (DeepSeek-V3 §2.1.2).
      m.moe.router_bias = has(config, "topk_method") && config.at("topk_method").is_string() &&
                          config.at("topk_method").get<std::string>() == "noaux_tc";
    }
    r.used.insert("num_experts_per_tok");
    r.used.insert("moe_intermediate_size");
    r.used.insert("n_shared_experts");
    r.used.insert("first_k_dense_replace");
    r.used.insert("moe_layer_freq");
    m.attention = AttentionKind::mla;
    m.mla.q_lora_rank = narrow(r.integer_or("q_lora_rank", 0, kMaxWidth, 0));
    m.mla.kv_lora_rank = narrow(r.integer("kv_lora_rank", 1, kMaxWidth));
    m.mla.qk_rope_head_dim = narrow(r.integer("qk_rope_head_dim", 0, kMaxWidth));
    m.mla.qk_nope_head_dim = narrow(r.integer("qk_nope_head_dim", 0, kMaxWidth));
    m.mla.v_head_dim = narrow(r.integer("v_head_dim", 1, kMaxWidth));
    m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    m.kv_heads = m.heads;
    m.qkv_bias = false;
    m.out_bias = false;
    r.used.insert("head_dim");
  }
  if (!deepseek) m.attention = attention_from_heads(m.heads, m.kv_heads);
  if (m.is_moe() && m.ffn == 0 && (m.moe.first_dense_layers > 0 || m.moe.layer_frequency > 1))
    throw InputError(
        fmt::format("{}: required field 'intermediate_size' is missing (the model "
                    "has dense layers)",
                    r.where));

  // What the config says that memwall does not model: named, never silently dropped.
  for (const auto& [key, value] : config.items()) {
    if (r.used.count(key)) continue;
    if (key == "sliding_window" && !value.is_null() &&
        !(has(config, "use_sliding_window") && config.at("use_sliding_window").is_boolean() &&
          !config.at("use_sliding_window").get<bool>()))
      m.warnings.push_back(fmt::format(
          "sliding_window {}: sliding-window attention is not modelled; every layer is treated as "
          "global attention (KV cache and attention FLOPs are upper bounds past the window)",
          shown(value.dump())));
    else if (key == "num_nextn_predict_layers" && value.is_number() && value.get<double>() > 0)
      m.warnings.push_back(fmt::format(
          "num_nextn_predict_layers {}: the multi-token-prediction module is not counted",
          value.dump()));
    else if (key == "quantization_config") {
      // An FP8 checkpoint with weight_block_size (DeepSeek-V3, Qwen3-*-FP8) is block-scaled.
      const bool fp8 = value.is_object() && value.contains("quant_method") &&
                       value.at("quant_method").is_string() &&
                       to_lower(value.at("quant_method").get<std::string>()) == "fp8";
      if (fp8)
        m.fp8_checkpoint = value.contains("weight_block_size") ? Fp8Recipe::blockwise
                                                               : Fp8Recipe::tensorwise;
      m.warnings.push_back(
          fp8 ? fmt::format("quantization_config: an FP8 checkpoint ({}); run it with "
                            "--weight-precision fp8 (parameter counts are unaffected)",
                            m.fp8_checkpoint == Fp8Recipe::blockwise ? "block-scaled"
                                                                     : "per-tensor/channel scales")
              : "quantization_config: the checkpoint is quantised; choose the weight precision "
                "with --weight-precision (parameter counts are unaffected)");
    }
    else if (!irrelevant_fields().count(key))
      m.warnings.push_back(fmt::format("field '{}' is not understood and was ignored", shown(key)));
  }
  validate(m, r.where);
  return m;
}

}  // namespace memwall
