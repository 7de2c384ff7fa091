// The web UI's JSON API answers with the library's own JSON (the CLI's --json), rejects bad
// requests with the field named, and the HTTP server serves the page and the API on a free port.
#include "memwall/ui/api.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/core/test_paths.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/plan/fleet.h"
#include "memwall/train/offload_request.h"
#include "memwall/train/request.h"
#include "memwall/ui/server.h"

namespace memwall::ui {
namespace {

// `memwall ui --calibration FILE`: every answer is timed with the server's profile, as the CLI's
// --calibration, and the catalog answer (the page's banner) names it; without it, the built-in.
TEST(UiApi, TheServersCalibrationTimesEveryAnswerAndIsNamed) {
  const std::string path = ::testing::TempDir() + "memwall_ui_cal_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << R"({"memory_bandwidth_fraction": {"default": 0.4},
             "fitted_on": {"groups": {"vllm@0.8": {"engine": "vLLM", "records": 6,
                                                    "accelerators": ["nvidia-h100-sxm"],
                                                    "residual_sd_log": 0.04}}}})";
  }
  ApiOptions calibrated;
  calibrated.calibration = path;
  const Catalog& c = Catalog::builtin();
  const Json request = {{"model", "llama-3.1-8b"}, {"batch", 16}};
  const double plain = handle(c, "infer", request).at("tpot_s").get<double>();
  const double cal = handle(c, "infer", request, nullptr, calibrated).at("tpot_s").get<double>();
  EXPECT_GT(cal, 1.5 * plain);  // 40 % of the datasheet bandwidth instead of the built-in share
  const Json sim = {{"model", "llama-3.1-8b"}, {"requests", 200}, {"rate", 5}};
  EXPECT_GT(handle(c, "simulate", sim, nullptr, calibrated)["tpot_s"]["mean"].get<double>(),
            1.5 * handle(c, "simulate", sim)["tpot_s"]["mean"].get<double>());
  EXPECT_TRUE(handle(c, "catalog", Json::object()).at("calibration").is_null());
  const Json named = handle(c, "catalog", Json::object(), nullptr, calibrated).at("calibration");
  EXPECT_EQ(named.at("file"), path.substr(path.find_last_of('/') + 1));
  ASSERT_EQ(named.at("groups").size(), 1u);
  EXPECT_EQ(named["groups"][0]["stack"], "vllm@0.8");
  EXPECT_EQ(named["groups"][0]["records"], 6);
  // The page's preloaded catalog carries it too.
  EXPECT_NE(served_page(c, calibrated).find("memwall_ui_cal_"), std::string::npos);
  std::remove(path.c_str());
}

TEST(UiApi, InferIsTheEstimatorsJsonWithEveryOperator) {
  const Catalog& c = Catalog::builtin();
  const Json r = handle(c, "infer",
                        Json{{"model", "llama-3.1-8b"},
                             {"gpu", "h100"},
                             {"batch", 8},
                             {"input", 512},
                             {"output", 128}});
  infer::DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.gpu = "h100";
  const infer::Deployment d = infer::make_deployment(c, o);
  const infer::Estimate e = infer::estimate(d, {8, 512, 128});
  EXPECT_DOUBLE_EQ(r.at("ttft_s").get<double>(), e.ttft.value());
  EXPECT_DOUBLE_EQ(r.at("tpot_s").get<double>(), e.tpot.value());
  ASSERT_TRUE(r.at("decode").at("step").contains("operators"));
  EXPECT_GT(r.at("decode").at("step").at("operators").size(), 5u);
}

TEST(UiApi, InferWithAnOffloadShowsThePlacement) {
  const Json r = handle(Catalog::builtin(), "infer",
                        Json{{"model", "deepseek-v3"}, {"gpu", "4090"}, {"weight_precision", "int4"},
                             {"batch", 1}, {"input", 512}, {"output", 128}, {"offload", "auto"},
                             {"host_memory_gb", 1024}});
  ASSERT_TRUE(r.contains("offload"));
  EXPECT_EQ(r.at("offload").at("strategy"), "experts");
  EXPECT_TRUE(r.at("offload").at("placement").contains("expert_weights"));
}

// The CLI's --ep, --engine and --engine-version reach the estimate (ui-audit-3: the page had no
// engine selector), and every field an endpoint reads is one it accepts (plan and compare read
// quality and min_recovery but refused them as unknown).
TEST(UiApi, InferAndSimulateTakeTheEngineAndItsVersionAndInferTakesEp) {
  const Catalog& c = Catalog::builtin();
  infer::DeploymentOptions o;
  o.model = "mixtral-8x7b";
  o.gpu = "h100";
  o.tp = 4;
  o.ep = 2;
  o.engine = "vllm";
  o.engine_version = "0.8";
  const infer::Estimate e = infer::estimate(infer::make_deployment(c, o), {8, 512, 128});
  const Json r = handle(c, "infer",
                        Json{{"model", "mixtral-8x7b"},
                             {"gpu", "h100"},
                             {"tp", 4},
                             {"ep", 2},
                             {"engine", "vllm"},
                             {"engine_version", "0.8"},
                             {"batch", 8},
                             {"input", 512},
                             {"output", 128}});
  EXPECT_DOUBLE_EQ(r.at("tpot_s").get<double>(), e.tpot.value());
  EXPECT_EQ(r.at("deployment").at("engine_version"), "0.8");
  const Json current = handle(c, "infer", Json{{"engine", "vllm"}});
  EXPECT_NE(current.at("deployment").at("engine_version"), "0.8");
  EXPECT_THROW(handle(c, "infer", Json{{"engine_version", "0.8"}}), InputError);  // no engine
  EXPECT_THROW(handle(c, "infer", Json{{"engine", "vllm"}, {"engine_version", "99"}}), InputError);
  const Json s =
      handle(c, "simulate", Json{{"engine", "vllm"}, {"engine_version", "0.8"}, {"requests", 200}});
  EXPECT_GT(s.at("throughput_tokens_per_s").get<double>(), 0);
  EXPECT_NO_THROW(handle(c, "compare", Json{{"gpus", {"h100"}}, {"quality", "any"}}));
  const Json cat = handle(c, "catalog", Json::object());
  bool vllm = false;
  for (const auto& engine : cat.at("engines"))
    if (engine.at("id") == "vllm") {
      vllm = true;
      EXPECT_EQ(engine.at("versions").at(0), current.at("deployment").at("engine_version"));
    }
  EXPECT_TRUE(vllm);
  for (const auto& endpoint : {"plan", "compare"}) {
    const auto fields = request_fields(endpoint);
    EXPECT_NE(std::find(fields.begin(), fields.end(), "quality"), fields.end()) << endpoint;
  }
}

// A Hugging Face repository id answers for its catalog model, as `--model org/name` does.
TEST(UiApi, ModelsAreTakenByHuggingFaceRepositoryIdToo) {
  const Catalog& c = Catalog::builtin();
  const Json by_id =
      handle(c, "infer", Json{{"model", "llama-3.1-70b"}, {"gpu", "h200"}, {"tp", 4}});
  const Json by_repo = handle(
      c, "infer", Json{{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"gpu", "h200"}, {"tp", 4}});
  EXPECT_EQ(by_repo.at("deployment").at("model"), "llama-3.1-70b");
  EXPECT_DOUBLE_EQ(by_repo.at("tpot_s").get<double>(), by_id.at("tpot_s").get<double>());
  EXPECT_THROW(handle(c, "infer", Json{{"model", "nobody/NoSuchModel"}}), InputError);
  const Json cat = handle(c, "catalog", Json::object());
  bool listed = false;
  for (const auto& m : cat.at("models"))
    if (m.at("id") == "llama-3.1-70b")
      for (const auto& repo : m.at("hf_repos"))
        listed = listed || repo == "meta-llama/Llama-3.1-70B-Instruct";
  EXPECT_TRUE(listed);
}

// A Hugging Face config.json sent as "config" answers as `--model FILE` does (the page's upload);
// a model beside it, or a config that is not an object, is refused by name.
TEST(UiApi, AnUploadedConfigAnswersAsTheCliReadingTheFile) {
  const Catalog& c = Catalog::builtin();
  // Llama-3.2-1B's shape (huggingface.co/meta-llama/Llama-3.2-1B config.json).
  const Json config{{"model_type", "llama"},      {"hidden_size", 2048},
                    {"intermediate_size", 8192},  {"num_hidden_layers", 16},
                    {"num_attention_heads", 32},  {"num_key_value_heads", 8},
                    {"vocab_size", 128256},       {"max_position_embeddings", 131072},
                    {"tie_word_embeddings", true}};
  const std::string path = ::testing::TempDir() + "tiny-llama.json";
  std::ofstream(path) << config.dump();
  infer::DeploymentOptions o;
  o.model = path;
  o.gpu = "h100";
  const infer::Estimate e = infer::estimate(infer::make_deployment(c, o), {16, 1024, 256});
  const Json r = handle(c, "infer", Json{{"config", config}, {"config_name", "tiny-llama.json"}});
  EXPECT_EQ(r.at("deployment").at("model"), "tiny-llama");
  EXPECT_DOUBLE_EQ(r.at("tpot_s").get<double>(), e.tpot.value());
  EXPECT_EQ(handle(c, "train", Json{{"config", config}}).at("config").is_object(), true);
  EXPECT_THROW(handle(c, "infer", Json{{"config", config}, {"model", "llama-3.1-8b"}}), InputError);
  EXPECT_THROW(handle(c, "infer", Json{{"config", "config.json"}}), InputError);
  EXPECT_THROW(handle(c, "infer", Json{{"config", Json{{"hidden_size", 8}}}}), InputError);
  EXPECT_THROW(handle(c, "net", Json{{"config", config}}), InputError);  // net takes no model
}

TEST(UiApi, BadRequestsNameTheField) {
  const Catalog& c = Catalog::builtin();
  auto message = [&](const std::string& endpoint, const Json& req) {
    try {
      handle(c, endpoint, req);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("infer", {{"batch", -1}}).find("batch"), std::string::npos);
  EXPECT_NE(message("infer", {{"batch", "many"}}).find("batch"), std::string::npos);
  EXPECT_NE(message("infer", {{"model", "/etc/passwd"}}).find("model"),
            std::string::npos);  // ids only
  EXPECT_NE(message("plan", {{"gpus", "h100"}}).find("gpus"), std::string::npos);
  EXPECT_NE(message("plan", {{"serving", "mixed"}}).find("serving"), std::string::npos);
  EXPECT_NE(message("net", {{"sizes", "lots"}}).find("sizes"), std::string::npos);
  EXPECT_NE(message("nope", Json::object()).find("endpoint"), std::string::npos);
  EXPECT_NE(message("infer", Json::array()).find("request"), std::string::npos);
}

TEST(UiApi, UnknownFieldsAreRejectedByName) {
  const Catalog& c = Catalog::builtin();
  try {
    handle(c, "infer", Json{{"btach", 4}});
    FAIL() << "a misspelt field was ignored";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("btach"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean batch"), std::string::npos) << m;
  }
  EXPECT_THROW(handle(c, "catalog", Json{{"x", 1}}), InputError);
  EXPECT_THROW(handle(c, "infer", Json{{"batch", ""}}), InputError);  // empty is not 0
  for (const auto& e : endpoints()) {
    if (e != "catalog") {
      EXPECT_FALSE(request_fields(e).empty()) << e;
    }
  }
}

// The fleet endpoint is `memwall plan fleet --json` over the same library call: the same curve as a
// list of rates gives the same fleet as the CSV, and a bad curve is refused naming the hour.
TEST(UiApi, FleetIsThePlanFleetAnswer) {
  const Catalog& c = Catalog::builtin();
  std::vector<double> week;
  {
    std::ifstream f(memwall::test::source_dir() + "/docs/examples/fleet/diurnal-week.csv");
    std::string line;
    std::getline(f, line);  // header
    while (std::getline(f, line)) week.push_back(std::stod(line.substr(line.find(',') + 1)));
  }
  ASSERT_EQ(week.size(), 168u);
  const Json a = handle(c, "fleet",
                        Json{{"model", "llama-3.1-70b"}, {"input", "1024"}, {"output", "256"},
                             {"demand", week}, {"check_requests", 0}});
  plan::FleetQuery q;
  q.base.model = "llama-3.1-70b";
  q.base.input = "1024";
  q.base.output = "256";
  q.check_requests = 0;
  std::string csv = "hour,rate_per_s\n";
  for (size_t h = 0; h < week.size(); ++h) csv += fmt::format("{},{}\n", h, week[h]);
  q.demand = plan::parse_demand_csv(csv, "week");
  EXPECT_EQ(a, plan::to_json(plan::plan_fleet(c, cost::PriceBook::builtin(), q)));
  EXPECT_GT(a.at("saving_usd").get<double>(), 0);
  try {
    handle(c, "fleet", Json{{"demand", Json::array({1.0, "x"})}});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("demand[1]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(handle(c, "fleet", Json::object()), InputError);
  EXPECT_THROW(handle(c, "fleet", Json{{"demand", Json::array({1.0})}, {"months", 0}}), InputError);
}

TEST(UiApi, TrainAndCompareAnswerWithTheirLibraryJson) {
  const Catalog& c = Catalog::builtin();
  const Json t = handle(c, "train", Json{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"gpus", 8}});
  EXPECT_GT(t.at("step_time_s").get<double>(), 0);
  EXPECT_THROW(handle(c, "train", Json{{"recompute", "some"}}), InputError);
  EXPECT_FALSE(t.contains("offload"));
  const Json o = handle(c, "train", Json{{"model", "llama-3.1-8b"}, {"gpu", "4090"}, {"gpus", 1},
                                         {"global_batch", 4}, {"recompute", "full"},
                                         {"offload", "optimizer:cpu"}});
  EXPECT_GT(o.at("offload").at("host_bytes_per_node").get<double>(), 100e9);
  EXPECT_THROW(handle(c, "train", Json{{"offload", "optimizer:gpu"}}), InputError);
  const Json s = handle(
      c, "compare", Json{{"model", "llama-3.1-8b"}, {"concurrency", 20}, {"gpus", {"h100", "l4"}}});
  ASSERT_EQ(s.at("rows").size(), 2u);
  EXPECT_TRUE(s.at("rows")[0].contains("memory"));
}

// The Training view's ZeRO stage, recomputation and sequence parallelism reach the estimate as
// the CLI's --zero, --recompute and --[no-]sequence-parallel do (ui-audit-3 D1: they were dropped,
// 16.7 s and 32.1 GiB where `memwall train ... --zero 3 --recompute full` gives 22.2 s, 11.5 GiB).
TEST(UiApi, TrainHonoursZeroRecomputeAndSequenceParallelAsTheCliDoes) {
  const Catalog& c = Catalog::builtin();
  for (const bool sp : {true, false}) {
    const Json api = handle(c, "train",
                            Json{{"model", "llama-3.1-8b"},
                                 {"gpu", "a100"},
                                 {"gpus", 16},
                                 {"tp", 2},
                                 {"zero", 3},
                                 {"recompute", "full"},
                                 {"sequence_parallel", sp}});
    train::Request r;  // as tools/memwall/cmd_train.cc builds it
    r.model = "llama-3.1-8b";
    r.gpu = "a100";
    r.config.gpus = 16;
    r.config.tp = 2;
    r.config.micro_batch = 1;
    r.config.global_batch = 256;
    r.config.seq = 4096;
    r.zero = 3;
    r.recompute = "full";
    r.sequence_parallel = sp;
    const Json cli = train::to_json(train::answer(c, train::OffloadRequest{r, {}, {}, {}}));
    EXPECT_DOUBLE_EQ(api.at("step_time_s").get<double>(), cli.at("step_time_s").get<double>());
    EXPECT_DOUBLE_EQ(api.at("memory_per_gpu_bytes").get<double>(),
                     cli.at("memory_per_gpu_bytes").get<double>());
    EXPECT_EQ(api.at("config"), cli.at("config"));
    EXPECT_EQ(api.at("config").at("zero"), 3);
    EXPECT_EQ(api.at("config").at("recompute"), "full");
  }
  // 8B on 16 A100 with ZeRO-3 and full recompute: the CLI's 22.2 s per step and 11.5 GiB.
  const Json z3 =
      handle(c, "train",
             Json{{"gpu", "a100"}, {"gpus", 16}, {"tp", 2}, {"zero", 3}, {"recompute", "full"}});
  EXPECT_NEAR(z3.at("step_time_s").get<double>(), 22.2, 0.05);
  EXPECT_NEAR(z3.at("memory_per_gpu_bytes").get<double>() / (1 << 30), 11.5, 0.05);
}

// Accelerator lists are bounded and planned once per accelerator, whatever the alias
// (ui-audit-3 D2b/c: `h100,nvidia-h100-sxm` gave every plan twice; 140,000 x "h100" took 23 GB).
TEST(UiApi, AcceleratorListsAreDeduplicatedAfterAliasesAndBounded) {
  const Catalog& c = Catalog::builtin();
  const Json once = handle(c, "plan", Json{{"concurrency", 20}, {"gpus", {"h100"}}, {"top", 1000}});
  const Json twice = handle(
      c, "plan",
      Json{{"concurrency", 20}, {"gpus", {"h100", "nvidia-h100-sxm", "H100"}}, {"top", 1000}});
  EXPECT_EQ(once.at("plans").size(), twice.at("plans").size());
  const Json rows =
      handle(c, "compare", Json{{"concurrency", 20}, {"gpus", {"h100", "h100", "l4"}}});
  EXPECT_EQ(rows.at("rows").size(), 2u);
  EXPECT_THROW(handle(c, "plan", Json{{"gpus", std::vector<std::string>(1000, "h100")}}),
               InputError);
}

// Hostile bodies: the parse bounds nesting, and no error message serialises the request
// (reliability-3 defect 1: request.dump() overflowed the stack at 75,000 levels).
TEST(UiApi, DeepAndOddBodiesAreBadInputWithAMessage) {
  const Catalog& c = Catalog::builtin();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    handle(c, "infer", parse_request_body(deep));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nesting deeper than"), std::string::npos) << e.what();
  }
  // Shallow enough to parse, but not an object: the message names the type, not the text.
  try {
    handle(c, "infer", Json::parse(std::string(60, '[') + std::string(60, ']')));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
  }
  EXPECT_THROW(parse_request_body(R"({"batch":1e400})"), InputError);
  EXPECT_THROW(parse_request_body("{\"model\":\"\xff\xfe\"}"), InputError);
  EXPECT_THROW(parse_request_body(R"({"batch":4,"batch":8})"), InputError);
  EXPECT_EQ(parse_request_body(""), Json::object());
}

TEST(UiApi, PlanAndNetAnswerWithTheirLibraryJson) {
  const Catalog& c = Catalog::builtin();
  const Json plan = handle(c, "plan",
                           Json{{"model", "llama-3.1-8b"},
                                {"concurrency", 20},
                                {"gpus", {"h100", "l4"}},
                                {"serving", "aggregated"},
                                {"top", 3}});
  ASSERT_GT(plan.at("plans").size(), 0u);
  EXPECT_LE(plan.at("plans").size(), 3u);
  for (const auto& p : plan.at("plans")) EXPECT_EQ(p.at("serving"), "aggregated");
  const Json net = handle(c, "net", Json{{"node", "hgx-h100"}, {"nodes", 2}, {"sizes", "1M..1G"}});
  EXPECT_EQ(net.at("rows").size(), 11u);  // 1M, 2M, ..., 1G
  EXPECT_EQ(net.at("ranks"), 16);
  EXPECT_FALSE(net.at("explain").at("bottleneck").get<std::string>().empty());
}

// Every point of the throughput frontier names the rank of its shape's plan, and the plans ranked
// below the rows shown come with the answer (issue 29: points past the top 20 led to no row).
TEST(UiApi, EveryFrontierPointNamesItsPlan) {
  const Json a = handle(Catalog::builtin(), "plan", Json::object());
  const Json& plans = a.at("plans");
  const auto plan_of = [&](size_t rank) -> const Json* {
    if (rank >= 1 && rank <= plans.size()) return &plans[rank - 1];
    for (const auto& p : a.at("frontier_plans"))
      if (p.at("plan_rank") == rank) return &p;
    return nullptr;
  };
  bool below_top = false;
  for (const auto& point : a.at("pareto_throughput")) {
    SCOPED_TRACE(point.dump());
    ASSERT_TRUE(point.at("plan_rank").is_number_unsigned());
    const size_t rank = point.at("plan_rank").get<size_t>();
    below_top = below_top || rank > plans.size();
    const Json* p = plan_of(rank);
    ASSERT_NE(p, nullptr);
    const std::string label = point.at("label").get<std::string>();
    // A disaggregated plan's devices are both pools'; its point is its own description.
    const Json& pool = p->at("prefill_pool");
    const int decode_devices =
        p->at("devices").get<int>() - (pool.is_null() ? 0 : pool.at("devices").get<int>());
    const std::string shape =
        fmt::format("{}x {} ({}) TP{} PP{}", decode_devices / p->at("replicas").get<int>(),
                    p->at("accelerator").get<std::string>(), p->at("node").get<std::string>(),
                    p->at("tp").get<int>(), p->at("pp").get<int>());
    EXPECT_NE(label.find(shape), std::string::npos) << shape;
    if (!pool.is_null()) {
      const std::string prefill =
          fmt::format("prefill {} x [{}x {} ({}) TP{} PP{}", pool.at("replicas").get<int>(),
                      pool.at("devices").get<int>() / pool.at("replicas").get<int>(),
                      pool.at("accelerator").get<std::string>(), pool.at("node").get<std::string>(),
                      pool.at("tp").get<int>(), pool.at("pp").get<int>());
      EXPECT_EQ(label.rfind(prefill, 0), 0u) << prefill;
    }
    EXPECT_NE(label.find("weights " + p->at("weight_precision").get<std::string>() + " / KV " +
                         p->at("kv_precision").get<std::string>()),
              std::string::npos);
  }
  EXPECT_TRUE(below_top) << "the default question's frontier is all in the top rows";
  for (const auto& p : a.at("pareto_cost_latency")) {
    const Json* same = plan_of(p.at("plan_rank").get<size_t>());
    if (same) {
      EXPECT_EQ(same->at("usd_per_million_tokens"), p.at("usd_per_million_tokens"));
    }
  }
}

TEST(UiApi, PlanReturnsTheEmittedFilesOfTheCli) {
  const Catalog& c = Catalog::builtin();
  const Json plan = handle(c, "plan",
                           Json{{"concurrency", 300},
                                {"gpus", {"h100"}},
                                {"serving", "aggregated"},
                                {"emit", "vllm"},
                                {"engine_version", "0.11"},
                                {"benchmark", true}});
  ASSERT_EQ(plan.at("emitted").size(), 2u);
  EXPECT_EQ(plan["emitted"][0]["name"], "plan-1-vllm.sh");
  const std::string script = plan["emitted"][0]["text"];
  EXPECT_NE(script.find("vllm serve Qwen/Qwen2.5-72B --tensor-parallel-size 4"), std::string::npos);
  EXPECT_EQ(plan["emitted"][1]["name"], "plan-1-benchmark.sh");
  EXPECT_THROW(handle(c, "plan", Json{{"emit", "helm"}}), InputError);
  // The keyed files too: llm-d's Helm values, MindIE's config.json and its launch script.
  const Json llm_d = handle(c, "plan",
                            Json{{"concurrency", 300},
                                 {"gpus", {"h100"}},
                                 {"serving", "aggregated"},
                                 {"emit", "llm-d"},
                                 {"engine_version", "0.11"}});
  ASSERT_EQ(llm_d.at("emitted").size(), 1u);
  EXPECT_EQ(llm_d["emitted"][0]["name"], "plan-1-llm-d.yaml");
  const Json mindie = handle(c, "plan",
                             Json{{"model", "qwen2.5-7b"},
                                  {"concurrency", 50},
                                  {"gpus", {"ascend-910b"}},
                                  {"engine", "mindie"},
                                  {"serving", "aggregated"},
                                  {"emit", "mindie"}});
  ASSERT_EQ(mindie.at("emitted").size(), 2u);
  EXPECT_EQ(mindie["emitted"][0]["name"], "plan-1-mindie.json");
  EXPECT_EQ(Json::parse(mindie["emitted"][0]["text"].get<std::string>())["Version"], "1.0.0");
  EXPECT_EQ(mindie["emitted"][1]["name"], "plan-1-mindie.sh");
}

TEST(UiApi, SimulateAnswersWithPercentilesAndAKvTimeSeries) {
  const Catalog& c = Catalog::builtin();
  const Json r =
      handle(c, "simulate",
             Json{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"rate", 5}, {"requests", 300}});
  EXPECT_EQ(r.at("completed"), 300);
  EXPECT_LE(r.at("ttft_s").at("p50").get<double>(), r.at("ttft_s").at("p99").get<double>());
  const Json& ts = r.at("timeseries_replica0");
  ASSERT_GT(ts.size(), 10u);
  EXPECT_LE(ts.size(), 401u);
  for (const auto& p : ts)
    EXPECT_LE(p.at("kv_used_tokens").get<int64_t>(), p.at("kv_capacity_tokens").get<int64_t>());
  EXPECT_THROW(handle(c, "simulate", Json{{"requests", 60000}}),
               InputError);  // bounded for a web request
  EXPECT_THROW(handle(c, "simulate", Json{{"scheduler", "fifo"}}), InputError);
}

// A server on a free loopback port, serving on its own thread until destroyed.
struct LocalServer {
  Server server{Catalog::builtin()};
  std::promise<int> ready;
  std::thread thread{[this] { server.run("127.0.0.1", 0, [this](int p) { ready.set_value(p); }); }};
  int port = ready.get_future().get();
  ~LocalServer() {
    server.stop();
    thread.join();
  }
};

TEST(UiServer, ServesThePageAndTheApiOnAFreePort) {
  LocalServer local;
  const int port = local.port;
  httplib::Client client("127.0.0.1", port);
  const auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("MEMWALL_PRELOAD"), std::string::npos);
  const auto ok = client.Post("/api/catalog", "{}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_GT(Json::parse(ok->body).at("accelerators").size(), 40u);
  // The page carries that answer: its first answer waits for no catalog request.
  const std::string tag = "window.MEMWALL_CATALOG = ";
  const size_t at = page->body.find(tag);
  ASSERT_NE(at, std::string::npos);
  const size_t end = page->body.find(";</script>", at);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(Json::parse(page->body.substr(at + tag.size(), end - at - tag.size())),
            Json::parse(ok->body));
  const auto bad = client.Post("/api/infer", R"({"gpu": "h1000"})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(Json::parse(bad->body).at("error").get<std::string>().find("h100"), std::string::npos);
  const auto impossible =
      client.Post("/api/infer", R"({"model": "llama-3.1-405b", "gpu": "l4"})", "application/json");
  ASSERT_TRUE(impossible);
  EXPECT_EQ(impossible->status, 422);
  const auto garbage = client.Post("/api/infer", "{not json", "application/json");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
}

// What a bare POST sends from another machine or page: Host and Origin chosen by the caller.
httplib::Result post_with(int port, const httplib::Headers& headers) {
  httplib::Client client("127.0.0.1", port);
  return client.Post("/api/catalog", headers, "{}", "application/json");
}

TEST(UiServer, RefusesForeignHostsAndOriginsAndASecondServerOnItsPort) {
  LocalServer local;
  const int port = local.port;
  const std::string self = "127.0.0.1:" + std::to_string(port);
  const auto evil = post_with(port, {{"Host", "evil.example"}});
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403);
  const auto rebound = post_with(port, {{"Host", self}, {"Origin", "http://evil.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  const auto own = post_with(port, {{"Host", "localhost:" + std::to_string(port)},
                                    {"Origin", "http://localhost:" + std::to_string(port)}});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200);
  Server second(Catalog::builtin());
  EXPECT_THROW(second.run("127.0.0.1", port), InputError);
}

TEST(UiServer, StalledConnectionsDoNotBlockOthers) {
  LocalServer local;
  const int port = local.port;
  std::vector<int> stalled;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 20; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    stalled.push_back(fd);  // connected, sends nothing
  }
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(2);  // far below the 20 x 1 s a worker-starved server would take
  const auto ok = client.Post("/api/catalog", "{}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  for (int fd : stalled) ::close(fd);
}

// A raw request on a fresh loopback connection; the reply as sent (headers and body), read until
// the server closes or `wait_s` passes.
std::string raw_exchange(int port, const std::string& request, int wait_s = 5) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return {};
  timeval tv{wait_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    reply.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

std::string post_request(int port, const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Every hostile body of ui-audit-3 D2/D9/D11 gets a 4xx with a JSON message, and the server stays
// up: deep nesting (a segfault), 1e400 and invalid UTF-8 (an empty 500 with EXCEPTION_WHAT), a
// chunked body past the 1 MiB limit (accepted at 50 MB).
TEST(UiServer, HostileBodiesGetA4xxWithAMessageAndTheServerStaysUp) {
  LocalServer local;
  const int port = local.port;
  const auto expect_4xx = [&](const std::string& request, const std::string& status) {
    const std::string reply = raw_exchange(port, request);
    EXPECT_EQ(reply.rfind("HTTP/1.1 " + status, 0), 0u) << reply.substr(0, 300);
    EXPECT_EQ(reply.find("EXCEPTION_WHAT"), std::string::npos) << reply.substr(0, 300);
    const size_t body = reply.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos);
    const Json j = Json::parse(reply.substr(body + 4), nullptr, false);
    ASSERT_TRUE(j.is_object()) << reply.substr(0, 300);
    EXPECT_FALSE(j.at("error").get<std::string>().empty());
  };
  expect_4xx(post_request(port, "/api/infer", std::string(100000, '[') + std::string(100000, ']')),
             "400");
  expect_4xx(post_request(port, "/api/infer", R"({"batch":1e400})"), "400");
  expect_4xx(post_request(port, "/api/infer", "{\"gpu\":\"\xff\xfe\"}"), "400");
  expect_4xx(post_request(port, "/api/infer", "{\"\xff\":1}"), "400");
  std::string chunked = "POST /api/infer HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                        "\r\nContent-Type: application/json\r\nConnection: close\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n";
  const std::string chunk(64 << 10, ' ');
  for (int i = 0; i < 20; ++i) chunked += fmt::format("{:x}\r\n", chunk.size()) + chunk + "\r\n";
  chunked += "0\r\n\r\n";
  expect_4xx(chunked, "413");
  httplib::Client client("127.0.0.1", port);
  const auto ok = client.Post("/api/catalog", "{}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

// Answers are not compressed on the fly at Brotli's maximum quality (ui-audit-3 D3: 88 ms for an
// inference answer, 3.7 s for the chart library); the page goes out gzip-compressed once.
TEST(UiServer, CompressionIsChosenForSpeed) {
  LocalServer local;
  httplib::Client client("127.0.0.1", local.port);
  const httplib::Headers browser{{"Accept-Encoding", "gzip, deflate, br, zstd"}};
  const auto answer = client.Post("/api/infer", browser, "{}", "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->get_header_value("Content-Encoding"), "");
  const auto page = client.Get("/", browser);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->get_header_value("Content-Encoding"), "gzip");
  const auto plain = client.Get("/");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->get_header_value("Content-Encoding"), "");
  EXPECT_NE(plain->body.find("MEMWALL_PRELOAD"), std::string::npos);
}

// A client trickling a byte at a time is closed at the request deadline, not kept while it sends
// (ui-audit-3 D10: the 5 s read timeout restarted with every byte, and 64 such clients starved
// the pool); with 200 of them a normal request is still answered within 1 s.
TEST(UiServer, TricklingClientsAreClosedAtTheDeadlineAndDoNotStarveThePool) {
  Server server(Catalog::builtin(), ServerLimits{.request_deadline_s = 1});
  std::promise<int> ready;
  std::thread thread([&] { server.run("127.0.0.1", 0, [&](int p) { ready.set_value(p); }); });
  const int port = ready.get_future().get();
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<int> slow;
  for (int i = 0; i < 200; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::send(fd, "P", 1, MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(1);
  const auto ok = client.Post("/api/catalog", "{}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // Keep trickling for 3 s: the server closes each at its 1 s deadline (recv sees the end).
  int closed = 0;
  for (int t = 0; t < 30; ++t) {
    for (int& fd : slow) {
      if (fd < 0) continue;
      if (::send(fd, "O", 1, MSG_NOSIGNAL) < 0) {
        ::close(fd);
        fd = -1;
        ++closed;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(closed, 200);
  for (int fd : slow)
    if (fd >= 0) ::close(fd);
  server.stop();
  thread.join();
}

// A client that asks for a slow plan and leaves after 100 ms frees the server's one worker within
// a checkpoint of the watchdog's 100 ms, not when the plan would have ended (issue 29: work
// continued after the client went away).
TEST(UiServer, APlanWhoseClientLeavesStopsAndFreesItsWorker) {
  using Clock = std::chrono::steady_clock;
  Server server(Catalog::builtin(), ServerLimits{.workers = 1});
  std::promise<int> ready;
  std::thread thread([&] { server.run("127.0.0.1", 0, [&](int p) { ready.set_value(p); }); });
  const int port = ready.get_future().get();
  // ~2 s on one core: every precision of every accelerator for a 671B MoE.
  const std::string slow = post_request(
      port, "/api/plan", R"({"model":"deepseek-v3","concurrency":3000,"quality":"any"})");
  auto start = Clock::now();
  ASSERT_NE(raw_exchange(port, slow, 60).find("HTTP/1.1 200"), std::string::npos);
  const auto full = Clock::now() - start;

  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::send(fd, slow.data(), slow.size(), MSG_NOSIGNAL), static_cast<ssize_t>(slow.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::close(fd);
  start = Clock::now();
  // The one worker answers the next connection only once the abandoned plan has stopped.
  const std::string next = raw_exchange(port, post_request(port, "/api/catalog", "{}"), 60);
  const auto freed = Clock::now() - start;
  EXPECT_NE(next.find("HTTP/1.1 200"), std::string::npos);
  EXPECT_LT(freed, full / 4) << "full plan " << std::chrono::duration<double>(full).count()
                             << " s; worker free " << std::chrono::duration<double>(freed).count()
                             << " s after the client left";
  server.stop();
  thread.join();
}

TEST(UiReport, PreloadsTheAnswersAndEscapesScriptEnds) {
  const std::string html = static_report(Json{{"note", "</script><b>"}});
  EXPECT_NE(html.find("window.MEMWALL_PRELOAD = {\"answers\":{\"note\":\"<\\/script><b>\"}}"),
            std::string::npos);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
}

// The served page fetches the chart library after its first answer; the report, which has no
// server, carries it inline in the placeholder's place (and nothing left to fetch).
TEST(UiReport, CarriesTheChartLibraryInline) {
  const std::string html = static_report(Json::object());
  EXPECT_EQ(html.find("data-src=\"vendor/echarts.min.js\""), std::string::npos);
  const size_t at = html.find("<script id=\"charts-library\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(html.size() - at, 500000u);  // ECharts 6.1 minified is 1.1 MB
  const std::string served(page());
  EXPECT_NE(served.find("<script id=\"charts-library\" data-src=\"vendor/echarts.min.js\"></script>"),
            std::string::npos)
      << "static_report's placeholder is gone from ui/index.html";
}

}  // namespace
}  // namespace memwall::ui
