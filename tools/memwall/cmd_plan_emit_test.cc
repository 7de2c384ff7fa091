// `memwall plan infer --emit vllm|sglang|trtllm|k8s|llm-d|mindie --benchmark`: every emitted engine
// flag is one of the targeted version's parser, every llm-d Helm key one of the chart's values
// schema and every MindIE field one of its documented config.json (data/deploy, read here from the
// file, not through the emitter), the plan's parallelism reaches the command, and the Kubernetes
// objects validate against the OpenAPI
// schema of their kind (Kubernetes v1.31 and LeaderWorkerSet v0.5.1, extracted to
// src/memwall/deploy/testdata/k8s-openapi-v1.31.json; the validator is k8s_openapi_validator.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli_test_util.h"
#include "k8s_openapi_validator.h"
#include "memwall/core/document.h"
#include "memwall/core/test_paths.h"
#include "memwall/deploy/emit_detail.h"

namespace memwall {
namespace {

using cli_test::run;

Json read_json(const std::string& relative) {
  return load_document(test::source_dir() + "/" + relative);
}

// The engine command of each pool in the script: the lines that start with the launch words.
std::vector<std::vector<std::string>> commands(const std::string& script,
                                               const std::string& launch) {
  std::vector<std::vector<std::string>> out;
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(launch + " ", 0) != 0) continue;
    std::vector<std::string> words;
    std::string w;
    bool quoted = false;
    for (char c : line) {
      if (c == '\'')
        quoted = !quoted;
      else if (c == ' ' && !quoted) {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else
        w += c;
    }
    if (!w.empty()) words.push_back(w);
    out.push_back(words);
  }
  return out;
}

// Checks every --flag of every command against the table; returns the flags with their values.
std::vector<std::map<std::string, std::string>> check_flags(const std::string& script,
                                                            const std::string& table_file) {
  const Json table = read_json(table_file)["engine_flags"];
  const std::string launch = table["launch"];
  const auto cmds = commands(script, launch);
  EXPECT_FALSE(cmds.empty()) << script;
  std::vector<std::map<std::string, std::string>> out;
  for (const auto& words : cmds) {
    std::map<std::string, std::string> flags;
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) != 0) continue;
      std::string name = words[i];
      bool known = table["flags"].contains(name);
      if (!known && name.rfind("--no-", 0) == 0) {
        const std::string base = "--" + name.substr(5);
        known = table["flags"].contains(base) && table["flags"][base].value("negatable", false);
      }
      EXPECT_TRUE(known) << name << " is not a flag of " << table["display"] << " (" << table_file
                         << ")";
      const bool takes_value =
          known && table["flags"].contains(name) && table["flags"][name]["type"] != "bool";
      const std::string value = takes_value && i + 1 < words.size() ? words[i + 1] : "";
      if (known && table["flags"].contains(name) && table["flags"][name]["type"] == "choice") {
        const auto& values = table["flags"][name]["values"];
        EXPECT_NE(std::find(values.begin(), values.end(), value), values.end())
            << name << " " << value;
      }
      flags[name] = value;
    }
    out.push_back(flags);
  }
  return out;
}

const std::string kAggregated = "plan infer --concurrency 300 --gpus h100 --serving aggregated";
const std::string kDisaggregated =
    "plan infer --concurrency 300 --gpus h100 --serving disaggregated";
const std::string kMoe =
    "plan infer --model mixtral-8x7b --concurrency 300 --gpus h100 --serving aggregated --quality "
    "any";

TEST(PlanEmit, VllmAggregatedUsesOnlyFlagsOf011AndThePlansShape) {
  const auto r = run(kAggregated + " --emit vllm --engine-version 0.11");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto cmds = check_flags(r.out, "data/deploy/vllm-0.11.json");
  ASSERT_EQ(cmds.size(), 1u);
  // Plan 1 of this scenario: 4 H100s at TP4, bf16 weights and KV (the plan table's TPxPP 4x1).
  EXPECT_EQ(cmds[0].at("--tensor-parallel-size"), "4");
  EXPECT_EQ(cmds[0].at("--dtype"), "bfloat16");
  EXPECT_EQ(cmds[0].at("--kv-cache-dtype"), "auto");
  EXPECT_EQ(cmds[0].at("--gpu-memory-utilization"), "0.9");
  EXPECT_TRUE(cmds[0].count("--max-num-seqs"));
  EXPECT_TRUE(cmds[0].count("--max-num-batched-tokens"));
  EXPECT_NE(r.out.find("# engine: vLLM 0.11"), std::string::npos);
  EXPECT_NE(r.out.find("#   --tensor-parallel-size: plan.shape.tp = 4"), std::string::npos)
      << r.out;
}

TEST(PlanEmit, VllmDisaggregatedHasAPrefillAndADecodeServerWithAConnectorOf011) {
  const auto r = run(kDisaggregated + " --emit vllm --engine-version 0.11");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto cmds = check_flags(r.out, "data/deploy/vllm-0.11.json");
  ASSERT_EQ(cmds.size(), 2u);
  const Json connectors = read_json("data/deploy/vllm-0.11.json")["engine_flags"]["kv_connectors"];
  for (size_t i = 0; i < 2; ++i) {
    const Json kv = Json::parse(cmds[i].at("--kv-transfer-config"));
    EXPECT_NE(std::find(connectors.begin(), connectors.end(), kv["kv_connector"]),
              connectors.end());
    EXPECT_EQ(kv["kv_role"], i == 0 ? "kv_producer" : "kv_consumer");
  }
  // Plan 1: decode pool TP8, prefill pool TP4 (the plan's PREFILL POOL column).
  EXPECT_EQ(cmds[0].at("--tensor-parallel-size"), "4");
  EXPECT_EQ(cmds[1].at("--tensor-parallel-size"), "8");
}

// Pools of two GPU generations: vLLM's NIXL handshake wants one vLLM build and one attention
// backend on both, and the default backend differs by generation, so the script says to pin it.
TEST(PlanEmit, VllmPoolsOfTwoGpuGenerationsAreToldToShareOneAttentionBackend) {
  const std::string q = "plan infer --concurrency 300 --gpus h100,b200 --serving disaggregated";
  const auto plans = run(q + " --json");
  ASSERT_EQ(plans.status, 0) << plans.out;
  const Json j = Json::parse(plans.out);
  int mixed = 0, same = 0;
  for (size_t i = 0; i < j["plans"].size() && (!mixed || !same); ++i) {
    const Json& p = j["plans"][i];
    ASSERT_TRUE(p["prefill_pool"].is_object());
    EXPECT_EQ(p["prefill_pool"]["engine"], p["software"]["engine"]);
    (p["prefill_pool"]["accelerator"] != p["accelerator"] ? mixed : same) = static_cast<int>(i) + 1;
  }
  ASSERT_TRUE(mixed && same) << "the scenario has no plan of one kind";
  const std::string note = "the pools run different GPU generations";
  const auto m = run(q + " --emit vllm --pick " + std::to_string(mixed));
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_NE(m.out.find(note), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("set one attention backend on both pools"), std::string::npos) << m.out;
  const auto s = run(q + " --emit vllm --pick " + std::to_string(same));
  ASSERT_EQ(s.status, 0) << s.out;
  EXPECT_EQ(s.out.find(note), std::string::npos) << s.out;
}

TEST(PlanEmit, VllmMoeTurnsOnExpertParallelism) {
  const auto r = run(kMoe + " --emit vllm --engine-version 0.11");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto cmds = check_flags(r.out, "data/deploy/vllm-0.11.json");
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0].at("--tensor-parallel-size"), "4");
  EXPECT_TRUE(cmds[0].count("--enable-expert-parallel"));
}

TEST(PlanEmit, SglangCommandsOfThreePlansUseOnlyItsFlags) {
  const std::string sglang = " --engine sglang --emit sglang --engine-version main-001067f";
  const std::string table = "data/deploy/sglang-main-001067f.json";
  const auto agg = run(kAggregated + sglang);
  ASSERT_EQ(agg.status, 0) << agg.out;
  const auto a = check_flags(agg.out, table);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].count("--tp-size"));
  EXPECT_FALSE(a[0].count("--disaggregation-mode"));
  const auto dis = run(kDisaggregated + sglang);
  ASSERT_EQ(dis.status, 0) << dis.out;
  const auto d = check_flags(dis.out, table);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].at("--disaggregation-mode"), "prefill");
  EXPECT_EQ(d[1].at("--disaggregation-mode"), "decode");
  const auto moe = run(kMoe + sglang);
  ASSERT_EQ(moe.status, 0) << moe.out;
  const auto m = check_flags(moe.out, table);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].at("--ep-size"), m[0].at("--tp-size"));
}

const Json* at_path(const Json& j, const std::string& path) {
  const Json* v = &j;
  std::istringstream parts(path);
  std::string key;
  while (std::getline(parts, key, '.')) {
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
  }
  return v;
}

// The validator over the committed schema file (read with the JSON parser itself: the
// LeaderWorkerSet CRD's inline pod templates nest deeper than load_document allows user files).
const k8s_openapi::Validator& validator() {
  static const k8s_openapi::Validator v = [] {
    std::ifstream in(test::source_dir() + "/src/memwall/deploy/testdata/k8s-openapi-v1.31.json");
    std::stringstream text;
    text << in.rdbuf();
    return k8s_openapi::Validator(Json::parse(text.str()));
  }();
  return v;
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += "\n  " + e;
  return s;
}

// The YAML documents of an emitted manifest (the text after each "---" line), parsed.
std::vector<Json> documents(const std::string& yaml) {
  std::vector<Json> out;
  size_t start = yaml.find("---\n");
  while (start != std::string::npos) {
    const size_t end = yaml.find("---\n", start + 4);
    const std::string doc =
        yaml.substr(start + 4, end == std::string::npos ? std::string::npos : end - start - 4);
    start = end;
    out.push_back(parse_document(doc, "manifest.yaml"));
  }
  return out;
}

// Each document of the manifest against the OpenAPI schema of its kind; returns the kinds seen.
std::vector<std::string> check_manifest(const std::string& yaml) {
  std::vector<std::string> kinds;
  for (const Json& obj : documents(yaml)) {
    kinds.push_back(obj.value("kind", ""));
    const auto errors = validator().validate(obj);
    EXPECT_TRUE(errors.empty()) << obj.value("kind", "") << " "
                                << obj["metadata"].value("name", "") << ":" << joined(errors);
    // Beyond the schema, the API server refuses a Deployment whose selector does not select its
    // pod template (apps/v1 validation): the emitter gives both the same labels.
    if (obj.value("kind", "") == "Deployment") {
      const Json* sel = at_path(obj, "spec.selector.matchLabels");
      const Json* labels = at_path(obj, "spec.template.metadata.labels");
      EXPECT_TRUE(sel && labels && *sel == *labels) << obj.dump();
    }
  }
  return kinds;
}

TEST(PlanEmit, KubernetesManifestsValidateAgainstTheOpenApiSchemaOfTheirKinds) {
  const auto agg = run(kAggregated + " --emit k8s --engine-version 0.11");
  ASSERT_EQ(agg.status, 0) << agg.out;
  EXPECT_EQ(check_manifest(agg.out), (std::vector<std::string>{"Deployment", "Service"}));
  EXPECT_NE(agg.out.find("nvidia.com/gpu: 4"), std::string::npos) << agg.out;
  EXPECT_NE(agg.out.find("- \"--tensor-parallel-size\"\n            - \"4\""), std::string::npos)
      << agg.out;
  // Plan 1 of the disaggregated scenario: a prefill and a decode pool, each on one node.
  const auto dis = run(kDisaggregated + " --emit k8s --engine-version 0.11");
  ASSERT_EQ(dis.status, 0) << dis.out;
  EXPECT_EQ(check_manifest(dis.out),
            (std::vector<std::string>{"Deployment", "Service", "Deployment", "Service"}));
  // Plan 4 of the disaggregated scenario: decode replicas of TP8 x PP2 = 16 H100s, two 8-GPU
  // nodes: a LeaderWorkerSet of size 2 for the decode pool.
  const auto multi = run(kDisaggregated + " --emit k8s --engine-version 0.11 --pick 4");
  ASSERT_EQ(multi.status, 0) << multi.out;
  const auto kinds = check_manifest(multi.out);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "LeaderWorkerSet"), kinds.end()) << multi.out;
  EXPECT_NE(multi.out.find("size: 2"), std::string::npos);
  const auto moe = run(kMoe + " --emit k8s --engine-version 0.11");
  ASSERT_EQ(moe.status, 0) << moe.out;
  EXPECT_EQ(check_manifest(moe.out), (std::vector<std::string>{"Deployment", "Service"}));
}

TEST(PlanEmit, SglangManifestsOfThreePlansValidateAgainstTheOpenApiSchema) {
  const std::string sglang = " --engine sglang --emit k8s --engine-version main-001067f";
  for (const std::string& q :
       {kAggregated + sglang, kDisaggregated + sglang, kDisaggregated + sglang + " --pick 4",
        kMoe + sglang}) {
    const auto r = run(q);
    ASSERT_EQ(r.status, 0) << q << "\n" << r.out;
    const auto kinds = check_manifest(r.out);
    EXPECT_GE(kinds.size(), 2u) << q;
  }
}

// trtllm-serve (data/deploy/trtllm-main-00209af.json): an aggregated plan and an MoE plan with EP
// use only the table's flags and carry the plan's shape; what trtllm-serve's command line cannot
// say (disaggregated pools, an FP8 KV cache: both need its config files) is refused by name, and
// the manifest validates like the other engines'.
TEST(PlanEmit, TrtllmCommandsUseOnlyItsFlagsAndRefuseWhatTheyCannotSay) {
  const std::string trtllm = " --engine trtllm --emit trtllm --engine-version main-00209af";
  const std::string table = "data/deploy/trtllm-main-00209af.json";
  const auto agg = run(kAggregated + trtllm);
  ASSERT_EQ(agg.status, 0) << agg.out;
  const auto a = check_flags(agg.out, table);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].at("--backend"), "pytorch");
  EXPECT_EQ(a[0].at("--host"), "0.0.0.0");
  EXPECT_TRUE(a[0].count("--tp_size"));
  EXPECT_TRUE(a[0].count("--max_batch_size"));
  EXPECT_EQ(a[0].at("--kv_cache_free_gpu_memory_fraction"), "0.9");
  EXPECT_FALSE(a[0].count("--ep_size"));
  const auto moe = run(kMoe + " --kv-precisions bf16" + trtllm);
  ASSERT_EQ(moe.status, 0) << moe.out;
  const auto m = check_flags(moe.out, table);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].at("--ep_size"), m[0].at("--tp_size"));
  const auto dis = run(kDisaggregated + trtllm, "2>&1");
  EXPECT_EQ(dis.status, 2) << dis.out;
  EXPECT_NE(dis.out.find("an aggregated plan"), std::string::npos) << dis.out;
  const auto fp8kv = run(kMoe + trtllm, "2>&1");
  EXPECT_EQ(fp8kv.status, 2) << fp8kv.out;
  EXPECT_NE(fp8kv.out.find("kv_cache_config.dtype"), std::string::npos) << fp8kv.out;
  const auto k8s =
      run(kAggregated + " --engine trtllm --emit k8s --engine-version main-00209af");
  ASSERT_EQ(k8s.status, 0) << k8s.out;
  EXPECT_EQ(check_manifest(k8s.out), (std::vector<std::string>{"Deployment", "Service"}));
  // An engine the plan was not estimated with is refused (the plan's figures are vLLM's).
  const auto other = run(kAggregated + " --emit trtllm --engine-version main-00209af");
  EXPECT_EQ(other.status, 2) << other.out;
}

// The document of `kind` in an emitted manifest.
Json object_of_kind(const std::string& yaml, const std::string& kind) {
  for (const Json& obj : documents(yaml))
    if (obj.value("kind", "") == kind) return obj;
  ADD_FAILURE() << "no " << kind << " in\n" << yaml;
  return Json::object();
}

// Every pod carries the deployment as labels (memwall.io/model, accelerator, tp, pp, precisions),
// the ones `memwall monitor --prometheus --advise` reads back from the pods' series; the
// Deployment's selector holds the same, and a LeaderWorkerSet's leader and worker pods both.
TEST(PlanEmit, PodsCarryTheDeploymentAsLabels) {
  const auto agg = run(kAggregated + " --emit k8s --engine-version 0.11");
  ASSERT_EQ(agg.status, 0) << agg.out;
  const Json d = object_of_kind(agg.out, "Deployment");
  const Json& labels = d["spec"]["template"]["metadata"]["labels"];
  EXPECT_EQ(labels.value("memwall.io/accelerator", ""), "nvidia-h100-sxm") << labels.dump();
  EXPECT_EQ(labels.value("memwall.io/tp", ""), "4") << labels.dump();
  EXPECT_EQ(labels.value("memwall.io/pp", ""), "1") << labels.dump();
  EXPECT_FALSE(labels.value("memwall.io/model", "").empty()) << labels.dump();
  EXPECT_FALSE(labels.value("memwall.io/weight-precision", "").empty()) << labels.dump();
  EXPECT_FALSE(labels.value("memwall.io/kv-precision", "").empty()) << labels.dump();
  const auto multi = run(kDisaggregated + " --emit k8s --engine-version 0.11 --pick 4");
  ASSERT_EQ(multi.status, 0) << multi.out;
  const Json lws = object_of_kind(multi.out, "LeaderWorkerSet");
  for (const char* role : {"leaderTemplate", "workerTemplate"}) {
    const Json& l = lws["spec"]["leaderWorkerTemplate"][role]["metadata"]["labels"];
    EXPECT_EQ(l.value("memwall.io/tp", ""), "8") << role << l.dump();
    EXPECT_EQ(l.value("memwall.io/pp", ""), "2") << role << l.dump();
  }
}

TEST(PlanEmit, SglangLeaderWorkerSetPassesEachPodItsRank) {
  const auto r =
      run(kDisaggregated + " --engine sglang --emit k8s --engine-version main-001067f --pick 4");
  ASSERT_EQ(r.status, 0) << r.out;
  // Plan 4: decode replicas of TP8 x PP2 H100s, two 8-GPU nodes each.
  const auto kinds = check_manifest(r.out);
  ASSERT_NE(std::find(kinds.begin(), kinds.end(), "LeaderWorkerSet"), kinds.end()) << r.out;
  EXPECT_NE(r.out.find("\"--node-rank\"\n"), std::string::npos);
  // LeaderWorkerSet v0.5.1 sets LWS_LEADER_ADDRESS in each container but no variable with the
  // pod's index (LWS_WORKER_INDEX came in v0.6.0): the rank comes from the pod's worker-index
  // label through the downward API.
  EXPECT_NE(r.out.find("\"$(MEMWALL_NODE_RANK)\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("LWS_WORKER_INDEX"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"$(LWS_LEADER_ADDRESS):20000\""), std::string::npos);
  const Json lws = object_of_kind(r.out, "LeaderWorkerSet");
  for (const char* role : {"leaderTemplate", "workerTemplate"}) {
    const Json& env = lws["spec"]["leaderWorkerTemplate"][role]["spec"]["containers"][0]["env"];
    ASSERT_EQ(env.size(), 1u) << role;
    EXPECT_EQ(env[0]["name"], "MEMWALL_NODE_RANK");
    EXPECT_EQ(env[0]["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.labels['leaderworkerset.sigs.k8s.io/worker-index']");
  }
  // The pool's Service sends requests to the leaders only (the other ranks serve no API).
  for (const Json& obj : documents(r.out)) {
    if (obj["kind"] == "Service" && obj["metadata"]["name"] == lws["metadata"]["name"]) {
      EXPECT_EQ(obj["spec"]["selector"].value("leaderworkerset.sigs.k8s.io/worker-index", ""), "0")
          << obj.dump();
    }
  }
}

bool has_error(const std::vector<std::string>& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(),
                     [&](const std::string& e) { return e.find(text) != std::string::npos; });
}

// The validator refuses what the API server refuses: each broken copy of a valid emitted object
// fails with the error that names the field.
TEST(PlanEmit, OpenApiValidatorRefusesUnknownFieldsWrongTypesAndMissingRequiredFields) {
  const auto agg = run(kAggregated + " --emit k8s --engine-version 0.11");
  ASSERT_EQ(agg.status, 0) << agg.out;
  const Json deployment = object_of_kind(agg.out, "Deployment");
  const Json service = object_of_kind(agg.out, "Service");
  ASSERT_TRUE(validator().validate(deployment).empty());
  ASSERT_TRUE(validator().validate(service).empty());

  Json d = deployment;
  d["spec"]["template"]["spec"]["containers"][0]["gpus"] = 4;
  auto e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "unknown field \"spec.template.spec.containers[0].gpus\"")) << joined(e);
  d = deployment;
  d["spec"]["replicas"] = "2";
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "spec.replicas: string where integer is required")) << joined(e);
  d = deployment;
  d["spec"]["template"]["spec"]["containers"][0].erase("name");
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "missing required field \"spec.template.spec.containers[0].name\""))
      << joined(e);
  d = deployment;
  d["spec"].erase("selector");
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "missing required field \"spec.selector\"")) << joined(e);
  d = deployment;
  d["spec"]["replicas"] = 3000000000LL;
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "spec.replicas: 3000000000 is outside int32")) << joined(e);
  d = deployment;
  d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] =
      Json::array({4});
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "resources.limits.nvidia.com/gpu: [4] matches 0 of the oneOf"))
      << joined(e);
  d = deployment;
  d["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]["port"] = 80.5;
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "livenessProbe.httpGet.port: 80.5 matches 0 of the oneOf")) << joined(e);
  d = deployment;
  d["spec"]["template"]["spec"]["containers"].push_back(
      d["spec"]["template"]["spec"]["containers"][0]);
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "spec.template.spec.containers[1]: duplicate item")) << joined(e);
  d = deployment;
  d["kind"] = "Deploymnet";
  e = validator().validate(d);
  EXPECT_TRUE(has_error(e, "no schema for apiVersion apps/v1 kind Deploymnet")) << joined(e);

  Json s = service;
  s["spec"]["ports"][0]["port"] = "8000";
  e = validator().validate(s);
  EXPECT_TRUE(has_error(e, "spec.ports[0].port: string where integer is required")) << joined(e);
  s = service;
  s["spec"]["selector"]["app"] = 1;
  e = validator().validate(s);
  EXPECT_TRUE(has_error(e, "spec.selector.app: integer where string is required")) << joined(e);
  s = service;
  s["metadata"]["labelz"] = Json::object();
  e = validator().validate(s);
  EXPECT_TRUE(has_error(e, "unknown field \"metadata.labelz\"")) << joined(e);

  const auto multi = run(kDisaggregated + " --emit k8s --engine-version 0.11 --pick 4");
  ASSERT_EQ(multi.status, 0) << multi.out;
  const Json lws = object_of_kind(multi.out, "LeaderWorkerSet");
  ASSERT_TRUE(validator().validate(lws).empty());
  Json l = lws;
  l["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Sometimes";
  e = validator().validate(l);
  EXPECT_TRUE(has_error(e, "spec.leaderWorkerTemplate.restartPolicy: \"Sometimes\" is not one of"))
      << joined(e);
  l = lws;
  l["spec"]["leaderWorkerTemplate"]["sizes"] = 2;
  e = validator().validate(l);
  EXPECT_TRUE(has_error(e, "unknown field \"spec.leaderWorkerTemplate.sizes\"")) << joined(e);
  l = lws;
  l["spec"]["leaderWorkerTemplate"].erase("workerTemplate");
  e = validator().validate(l);
  EXPECT_TRUE(has_error(e, "missing required field \"spec.leaderWorkerTemplate.workerTemplate\""))
      << joined(e);
  l = lws;
  l["spec"]["leaderWorkerTemplate"]["size"] = "2";
  e = validator().validate(l);
  EXPECT_TRUE(has_error(e, "spec.leaderWorkerTemplate.size: string where integer is required"))
      << joined(e);
  l = lws;
  l["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["argz"] =
      Json::array();
  e = validator().validate(l);
  EXPECT_TRUE(has_error(
      e, "unknown field \"spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].argz\""))
      << joined(e);
  // A custom resource's metadata is ObjectMeta, though its CRD says only "type: object".
  l = lws;
  l["metadata"]["labelz"] = Json::object();
  e = validator().validate(l);
  EXPECT_TRUE(has_error(e, "unknown field \"metadata.labelz\"")) << joined(e);
}

TEST(PlanEmit, BenchmarkCarriesThePlansWorkloadAndSavesAResult) {
  const auto r = run(kAggregated + " --pick 1 --benchmark --engine-version 0.11");
  ASSERT_EQ(r.status, 0) << r.out;
  const Json table = read_json("data/deploy/vllm-0.11.json")["engine_flags"]["benchmark"];
  const auto cmds = commands(r.out, "vllm bench serve");
  ASSERT_EQ(cmds.size(), 1u) << r.out;
  std::set<std::string> flags;
  for (const auto& w : cmds[0])
    if (w.rfind("--", 0) == 0) {
      flags.insert(w);
      const auto& known = table["flags"];
      EXPECT_NE(std::find(known.begin(), known.end(), w), known.end()) << w;
    }
  for (const char* f : {"--max-concurrency", "--random-input-len", "--random-output-len",
                        "--num-prompts", "--save-result", "--result-filename"})
    EXPECT_TRUE(flags.count(f)) << f;
  // 300 concurrent users (the plan's load) and ShareGPT's mean lengths (the plan's first section).
  EXPECT_NE(r.out.find("--max-concurrency 300 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--dataset-name random"), std::string::npos);
}

// A newcomer's first try: no --engine-version. The plan is estimated with vLLM 0.14, and the
// emitted command and benchmark use the 0.14 table's flags only.
TEST(PlanEmit, TheDefaultVersionEmitsAndBenchmarksWithThePlansEngineRelease) {
  auto r = run(kAggregated + " --emit vllm");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto cmds = check_flags(r.out, "data/deploy/vllm-0.14.json");
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0].at("--tensor-parallel-size"), "4");
  EXPECT_NE(r.out.find("# engine: vLLM 0.14"), std::string::npos) << r.out;
  r = run(kAggregated + " --pick 1 --benchmark");
  ASSERT_EQ(r.status, 0) << r.out;
  const Json table = read_json("data/deploy/vllm-0.14.json")["engine_flags"]["benchmark"];
  const auto bench = commands(r.out, "vllm bench serve");
  ASSERT_EQ(bench.size(), 1u) << r.out;
  for (const auto& w : bench[0]) {
    if (w.rfind("--", 0) != 0) continue;
    EXPECT_NE(std::find(table["flags"].begin(), table["flags"].end(), w), table["flags"].end()) << w;
  }
}

// The loop closed: the import line the benchmark script prints reads the benchmark's result (a
// file of serve.py's schema, here the importer's fixture at the plan's load) into records of the
// plan's deployment, and memwall calibrate fits them.
TEST(PlanEmit, TheBenchmarksImportLineReadsItsResultBackForCalibrate) {
  const auto r = run(kAggregated + " --pick 1 --benchmark");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string marker = "# then: memwall import ";
  const size_t at = r.out.find(marker);
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string line = r.out.substr(at + marker.size(), r.out.find('\n', at) - at - marker.size());
  const std::string file = line.substr(0, line.find(' '));
  EXPECT_EQ(file, "memwall-plan-1-vllm-serve.json");
  line = line.substr(file.size(), line.find(" > ") - file.size());
  for (const char* f : {"--gpu nvidia-h100-sxm", "--tp 4", "--dp 2", "--engine vllm",
                        "--engine-version 0.14", "--input 155", "--output 324"})
    EXPECT_NE(line.find(f), std::string::npos) << f << " in " << line;
  // The result of that run, as serve.py writes it at the plan's load.
  Json result = read_json("src/memwall/measure/testdata/vllm_serve_concurrency.json");
  result["model_id"] = result["tokenizer_id"] = "Qwen/Qwen2.5-72B";
  result["max_concurrency"] = 300;
  result["num_prompts"] = result["completed"] = 3000;
  result["total_input_tokens"] = 3000 * 155;
  result["total_output_tokens"] = 3000 * 324;
  const auto dir = std::filesystem::path(testing::TempDir());
  const std::string result_path = (dir / file).string();
  std::ofstream(result_path) << result.dump();
  const std::string records = (dir / "memwall-plan-1-records.json").string();
  const auto imported = run("import " + result_path + line + " > " + records, "2>/dev/null");
  ASSERT_EQ(imported.status, 0) << run("import " + result_path + line, "2>&1").out;
  const Json doc = load_document(records);
  ASSERT_GT(doc["records"].size(), 10u);
  EXPECT_EQ(doc["records"][0]["stack"]["tp"], 4);
  EXPECT_EQ(doc["records"][0]["stack"]["dp"], 2);
  EXPECT_EQ(doc["records"][0]["hardware"]["count"], 8);
  const auto fitted = run("calibrate " + records + " --json");
  EXPECT_EQ(fitted.status, 0) << fitted.out;
}

TEST(PlanEmit, BadValuesExit2NamingTheField) {
  auto r = run(kAggregated + " --emit helm", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--emit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("llm-d or mindie"), std::string::npos) << r.out;
  r = run(kAggregated + " --emit vllm --engine-version 0.11 --pick 0", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--pick"), std::string::npos) << r.out;
  r = run(kAggregated + " --emit vllm --engine-version 0.11 --pick 99", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--pick"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a plan number from 1 to "), std::string::npos) << r.out;
  // A version with no flag table: refused, naming the tables there are.
  r = run(kAggregated + " --emit vllm --engine-version 0.12", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--engine-version"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vllm 0.11"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vllm 0.14"), std::string::npos) << r.out;
  // SGLang commands for a plan estimated with vLLM: refused, naming the plan's engine.
  r = run(kAggregated + " --emit sglang --engine-version main-001067f", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("vLLM 0.14"), std::string::npos) << r.out;
}

// The files of a printed emission ("==> NAME <==" then the text), by name.
std::map<std::string, std::string> emitted_files(const std::string& out) {
  std::map<std::string, std::string> files;
  std::string name;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("==> ", 0) == 0 && line.size() > 8 && line.compare(line.size() - 4, 4, " <==") == 0) {
      name = line.substr(4, line.size() - 8);
      files[name];
      continue;
    }
    if (!name.empty()) files[name] += line + "\n";
  }
  return files;
}

// Every key of the emitted document is one the table records (read from the data file, not
// through the emitter), of its type and, where recorded, one of its values: objects are walked,
// a list of objects by its items ("containers[]"). Returns the keys seen.
void check_recorded(const Json& v, const std::string& path, const Json& recorded,
                    std::set<std::string>& seen) {
  if (recorded.contains(path)) {
    const Json& spec = recorded[path];
    EXPECT_TRUE(deploy::detail::of_recorded_type(v, spec["type"])) << path << " = " << v.dump() << " is not "
                                                << spec["type"];
    if (spec.contains("values")) {
      const auto& values = spec["values"];
      EXPECT_NE(std::find(values.begin(), values.end(), v), values.end()) << path << " " << v;
    }
    seen.insert(path);
    return;
  }
  const bool walk = v.is_object() || (v.is_array() && !v.empty() && v[0].is_object());
  EXPECT_TRUE(walk && !path.empty() ? true : v.is_object())
      << path << " = " << v.dump() << " is not a recorded key";
  if (!walk) return;
  if (v.is_object())
    for (const auto& [k, x] : v.items()) check_recorded(x, path.empty() ? k : path + "." + k, recorded, seen);
  else
    for (const auto& x : v) check_recorded(x, path + "[]", recorded, seen);
}

// The vLLM flags of a container's args against the vLLM table, as the commands' flags are.
std::map<std::string, std::string> check_args(const Json& args, const std::string& table_file) {
  std::string line = read_json(table_file)["engine_flags"]["launch"].get<std::string>() + " model";
  for (const auto& a : args) line += " '" + a.get<std::string>() + "'";
  const auto flags = check_flags(line + "\n", table_file);
  return flags.empty() ? std::map<std::string, std::string>{} : flags.front();
}

const std::string kLlmd = "data/deploy/llm-d-modelservice-v0.4.12.json";

// The YAML values of an llm-d emission, checked: they parse (yaml-cpp), every key is a key of the
// chart's recorded values schema, every container arg a flag of vLLM 0.11, and the container's
// env, ports and resources are what Kubernetes accepts (inside a Deployment, against the OpenAPI
// schema). Returns the values.
Json check_llm_d(const std::string& out) {
  std::string yaml;
  for (const auto& [name, text] : emitted_files(out))
    if (name.size() > 11 && name.compare(name.size() - 11, 11, "-llm-d.yaml") == 0) yaml = text;
  EXPECT_FALSE(yaml.empty()) << out;
  const Json values = parse_document(yaml, "values.yaml");
  std::set<std::string> seen;
  check_recorded(values, "", read_json(kLlmd)["helm_values"]["keys"], seen);
  for (const char* role : {"decode", "prefill"}) {
    if (!values[role].contains("containers")) continue;
    const Json& c = values[role]["containers"][0];
    const auto flags = check_args(c["args"], "data/deploy/vllm-0.11.json");
    // The chart writes these itself (templates/_helpers.tpl vllmServeModelCommand). The table is
    // held by name: a range-for over a member of a temporary would read freed memory (C++20).
    const Json table = read_json(kLlmd);
    for (const auto& f : table["helm_values"]["chart_args"])
      EXPECT_FALSE(flags.count(f.get<std::string>())) << role << " " << f;
    Json container = {{"name", c["name"]}, {"image", c["image"]}, {"args", c["args"]}};
    for (const char* k : {"env", "ports", "resources"})
      if (c.contains(k)) container[k] = c[k];
    const Json deployment = {
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "llm-d-check"}}},
        {"spec",
         {{"selector", {{"matchLabels", {{"app", "x"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "x"}}}}},
            {"spec", {{"containers", Json::array({container})}}}}}}}};
    const auto errors = validator().validate(deployment);
    EXPECT_TRUE(errors.empty()) << role << joined(errors);
  }
  return values;
}

TEST(PlanEmit, LlmdAggregatedValuesUseTheChartsKeysAndThePlansShape) {
  const auto r = run(kAggregated + " --emit llm-d --engine-version 0.11 --explain");
  ASSERT_EQ(r.status, 0) << r.out;
  const Json v = check_llm_d(r.out);
  // Plan 1: 2 replicas of 4 H100s at TP4 (as --emit vllm), the decode role only.
  EXPECT_EQ(v["decode"]["replicas"], 2) << v.dump();
  EXPECT_EQ(v["decode"]["parallelism"]["tensor"], 4);
  EXPECT_EQ(v["prefill"]["create"], false);
  EXPECT_EQ(v["routing"]["proxy"]["enabled"], false);
  EXPECT_EQ(v["accelerator"]["type"], "nvidia");
  EXPECT_EQ(v["decode"]["containers"][0]["modelCommand"], "vllmServe");
  EXPECT_EQ(v["decode"]["nodeSelector"]["memwall.io/accelerator"], "nvidia-h100-sxm");
  EXPECT_EQ(v["modelArtifacts"]["labels"].value("memwall.io/tp", ""), "4");
  EXPECT_EQ(v["modelArtifacts"]["uri"], "hf://" + v["modelArtifacts"]["name"].get<std::string>());
  const auto flags = check_args(v["decode"]["containers"][0]["args"], "data/deploy/vllm-0.11.json");
  EXPECT_EQ(flags.at("--dtype"), "bfloat16");
  EXPECT_TRUE(flags.count("--max-num-seqs"));
  EXPECT_FALSE(flags.count("--kv-transfer-config"));
  // Every key and flag traced (--explain), and the chart and its commit named.
  const auto files = emitted_files(r.out);
  const std::string explain = files.at("plan-1-explain.txt");
  EXPECT_NE(explain.find("decode.parallelism.tensor 4 <- plan shape TP4"), std::string::npos)
      << explain;
  EXPECT_NE(explain.find("decode.containers[].args --max-num-seqs"), std::string::npos);
  EXPECT_NE(files.at("plan-1-llm-d.yaml").find("3051935eb5a49f6df21cd6aeb5e4f05b98799262"),
            std::string::npos);
}

// A replica with pipeline stages on one node: vLLM's --pipeline-parallel-size in the args, and the
// pod's accelerators (TP x PP) set in resources, which the chart keeps over its tensor x dataLocal.
TEST(PlanEmit, LlmdPipelineStagesOnOneNodeRequestEveryDevice) {
  // Plan 3 of the aggregated scenario: 8 H100s at TP4 x PP2.
  const auto r = run(kAggregated + " --emit llm-d --engine-version 0.11 --pick 3");
  ASSERT_EQ(r.status, 0) << r.out;
  const Json v = check_llm_d(r.out);
  const Json& c = v["decode"]["containers"][0];
  EXPECT_EQ(v["decode"]["parallelism"]["tensor"], 4);
  EXPECT_EQ(check_args(c["args"], "data/deploy/vllm-0.11.json").at("--pipeline-parallel-size"), "2");
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"], 8) << c.dump();
  EXPECT_EQ(c["resources"]["requests"]["nvidia.com/gpu"], 8) << c.dump();
}

TEST(PlanEmit, LlmdDisaggregatedValuesHaveBothRolesWithNixl) {
  const auto r = run(kDisaggregated + " --emit llm-d --engine-version 0.11 --benchmark");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto files = emitted_files(r.out);
  const Json v = check_llm_d(r.out);
  // Plan 1: decode pool TP8, prefill pool TP4 (as --emit vllm).
  EXPECT_EQ(v["prefill"]["parallelism"]["tensor"], 4);
  EXPECT_EQ(v["decode"]["parallelism"]["tensor"], 8);
  EXPECT_GE(v["prefill"]["replicas"].get<int>(), 1);
  EXPECT_FALSE(v.contains("routing")) << "the chart's routing sidecar stays on for P/D";
  const Json connectors = read_json("data/deploy/vllm-0.11.json")["engine_flags"]["kv_connectors"];
  for (const char* role : {"prefill", "decode"}) {
    const Json& c = v[role]["containers"][0];
    const auto flags = check_args(c["args"], "data/deploy/vllm-0.11.json");
    const Json kv = Json::parse(flags.at("--kv-transfer-config"));
    EXPECT_EQ(kv["kv_connector"], "NixlConnector") << role;
    EXPECT_NE(std::find(connectors.begin(), connectors.end(), kv["kv_connector"]), connectors.end());
    EXPECT_EQ(kv["kv_role"], "kv_both") << role;
    EXPECT_EQ(c["env"][0]["name"], "VLLM_NIXL_SIDE_CHANNEL_HOST") << role;
    // vLLM's port: the decode pod behind the routing sidecar on 8200, the prefill pod on 8000.
    EXPECT_EQ(c["ports"][0]["containerPort"], std::string(role) == "decode" ? 8200 : 8000);
  }
  EXPECT_NE(files.at("plan-1-benchmark.sh").find("--base-url http://GATEWAY"), std::string::npos);
}

TEST(PlanEmit, LlmdRefusesWhatTheChartCannotSay) {
  // Plan 4: decode replicas of TP8 x PP2 = two 8-GPU nodes.
  auto r = run(kDisaggregated + " --emit llm-d --engine-version 0.11 --pick 4", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--emit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replicas fit one node"), std::string::npos) << r.out;
  r = run(kAggregated + " --engine sglang --emit llm-d", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("a plan estimated with vLLM"), std::string::npos) << r.out;
}

const std::string kMindieTable = "data/deploy/mindie-3.0.0.beta.1.json";
const std::string kMindie =
    "plan infer --model qwen2.5-7b --concurrency 50 --gpus ascend-910b --engine mindie "
    "--serving aggregated --weight-precisions bf16 --kv-precisions bf16";

// MindIE's config.json: every field is one of the recorded fields of MindIE's documented
// config.json (read from the data file), of its type and values; the plan's TP, B* and workload
// reach worldSize, npuDeviceIds, maxBatchSize and the length limits; the launch script sets the
// memory fraction the plan assumes; every field is traced in --explain.
TEST(PlanEmit, MindieConfigUsesItsDocumentedFieldsAndThePlansShape) {
  const auto r = run(kMindie + " --emit mindie --explain");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto files = emitted_files(r.out);
  ASSERT_TRUE(files.count("plan-1-mindie.json")) << r.out;
  const Json c = Json::parse(files.at("plan-1-mindie.json"));
  std::set<std::string> seen;
  const Json fields = read_json(kMindieTable)["config_file"]["fields"];
  check_recorded(c, "", fields, seen);
  // Every field the table records as required by the config file is written.
  for (const char* f : {"Version", "ServerConfig.port", "ServerConfig.maxLinkNum",
                        "BackendConfig.npuDeviceIds", "BackendConfig.ModelDeployConfig.maxSeqLen",
                        "BackendConfig.ModelDeployConfig.ModelConfig[].worldSize",
                        "BackendConfig.ModelDeployConfig.ModelConfig[].npuMemSize",
                        "BackendConfig.ScheduleConfig.maxBatchSize",
                        "BackendConfig.ScheduleConfig.maxPrefillTokens"})
    EXPECT_TRUE(seen.count(f)) << f;
  const Json& model = c["BackendConfig"]["ModelDeployConfig"]["ModelConfig"][0];
  const Json& sched = c["BackendConfig"]["ScheduleConfig"];
  const int tp = model["worldSize"];
  EXPECT_EQ(model["tp"], tp);
  EXPECT_EQ(c["BackendConfig"]["npuDeviceIds"][0].size(), static_cast<size_t>(tp));
  EXPECT_EQ(c["ServerConfig"]["inferMode"], "standard");
  EXPECT_GE(sched["maxPrefillTokens"].get<int>(),
            c["BackendConfig"]["ModelDeployConfig"]["maxInputTokenLen"].get<int>());
  EXPECT_LE(sched["maxPrefillBatchSize"].get<int>(), sched["maxBatchSize"].get<int>());
  EXPECT_EQ(c["BackendConfig"]["ModelDeployConfig"]["maxSeqLen"].get<int>(),
            c["BackendConfig"]["ModelDeployConfig"]["maxInputTokenLen"].get<int>() +
                sched["maxIterTimes"].get<int>());
  // The plan table's shape and B* (plan 1's TP and batch cap, as --emit shows them elsewhere).
  const std::string explain = files.at("plan-1-explain.txt");
  EXPECT_NE(explain.find("BackendConfig.ModelDeployConfig.ModelConfig[].worldSize " +
                         std::to_string(tp) + " <- plan.shape.tp = " + std::to_string(tp)),
            std::string::npos)
      << explain;
  EXPECT_NE(explain.find("BackendConfig.ScheduleConfig.maxBatchSize " +
                         std::to_string(sched["maxBatchSize"].get<int>()) + " <- plan.batch_cap"),
            std::string::npos)
      << explain;
  for (const auto& f : seen) EXPECT_NE(explain.find(f + " "), std::string::npos) << f;
  const std::string script = files.at("plan-1-mindie.sh");
  EXPECT_NE(script.find("export NPU_MEMORY_FRACTION=0.9\n"), std::string::npos) << script;
  EXPECT_NE(script.find("./bin/mindieservice_daemon"), std::string::npos);
  EXPECT_NE(script.find("5e896196ce2c1ed3f14cec0a622de2072c3c75b4"), std::string::npos);
}

TEST(PlanEmit, MindieRefusesPlansItsConfigCannotSay) {
  // A plan estimated with vLLM on H100s.
  auto r = run(kAggregated + " --emit mindie", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--emit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a plan estimated with MindIE"), std::string::npos) << r.out;
  // Disaggregated pools (MindIE Motor's deployment).
  r = run("plan infer --model qwen2.5-7b --concurrency 50 --gpus ascend-910b --engine mindie "
          "--serving disaggregated --emit mindie",
          "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("an aggregated plan"), std::string::npos) << r.out;
  // No benchmark against MindIE, and no other version of its fields.
  r = run(kMindie + " --emit mindie --benchmark", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--benchmark"), std::string::npos) << r.out;
  r = run(kMindie + " --emit mindie --engine-version 2.0", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("3.0.0.beta.1"), std::string::npos) << r.out;
  // Pipeline stages (plan 2 of the scenario: TP4 x PP2), experts over the TP group (Mixtral, EP8)
  // and an int8 KV cache beside bf16 weights have no config.json field.
  r = run(kMindie + " --emit mindie --pick 2", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("a plan with PP1"), std::string::npos) << r.out;
  r = run("plan infer --model mixtral-8x7b --concurrency 50 --gpus ascend-910b --engine mindie "
          "--serving aggregated --quality any --emit mindie",
          "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("a plan with EP1"), std::string::npos) << r.out;
  const std::string int8 =
      "plan infer --model qwen2.5-7b --concurrency 50 --gpus ascend-910b --engine mindie "
      "--serving aggregated --quality any --kv-precisions int8 --emit mindie";
  r = run(int8 + " --weight-precisions bf16", "2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("with int8 (W8A8) weights only"), std::string::npos) << r.out;
  // With W8A8 weights the int8 KV cache is the checkpoint's (a note, no field).
  r = run(int8 + " --weight-precisions int8");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("# note: KV int8: the W8A8 checkpoint must carry kv_cache_type C8"),
            std::string::npos)
      << r.out;
}

// vLLM replicas across nodes: the LeaderWorkerSet's leader starts the Ray head and waits for the
// group (LWS_GROUP_SIZE), then serves with --distributed-executor-backend ray; each worker joins
// at LWS_LEADER_ADDRESS and serves no API (no probes), as vLLM's LWS guide has it.
TEST(PlanEmit, VllmLeaderWorkerSetJoinsARayCluster) {
  const auto r = run(kDisaggregated + " --emit k8s --engine-version 0.11 --pick 4");
  ASSERT_EQ(r.status, 0) << r.out;
  check_manifest(r.out);
  const Json lws = object_of_kind(r.out, "LeaderWorkerSet");
  const Json& leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0];
  const Json& worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0];
  EXPECT_EQ(leader["command"], Json::array({"sh", "-c"}));
  const std::string lead = leader["args"][0];
  EXPECT_EQ(lead.rfind("bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                       "--ray_cluster_size=$(LWS_GROUP_SIZE) && vllm serve ",
                       0),
            0u)
      << lead;
  const auto flags = check_flags(lead.substr(lead.find("vllm serve ")) + "\n",
                                 "data/deploy/vllm-0.11.json");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].at("--distributed-executor-backend"), "ray");
  EXPECT_EQ(flags[0].at("--pipeline-parallel-size"), "2");
  EXPECT_TRUE(leader.contains("readinessProbe"));
  EXPECT_EQ(worker["args"][0],
            "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
            "--ray_address=$(LWS_LEADER_ADDRESS)");
  EXPECT_FALSE(worker.contains("readinessProbe"));
  EXPECT_FALSE(worker.contains("ports"));
  EXPECT_EQ(worker["resources"], leader["resources"]);
}

}  // namespace
}  // namespace memwall
