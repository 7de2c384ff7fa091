// The web UI's JSON API answers with the library's own JSON (the CLI's --json), rejects bad
// requests with the field named, and the HTTP server serves the page and the API on a free port.
#include "memwall/ui/api.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "memwall/core/error.h"
#include "memwall/infer/deployment.h"
#include "memwall/infer/estimate.h"
#include "memwall/ui/server.h"

namespace memwall::ui {
namespace {

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

TEST(UiReport, PreloadsTheAnswersAndEscapesScriptEnds) {
  const std::string html = static_report(Json{{"note", "</script><b>"}});
  EXPECT_NE(html.find("window.MEMWALL_PRELOAD = {\"answers\":{\"note\":\"<\\/script><b>\"}}"),
            std::string::npos);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
}

}  // namespace
}  // namespace memwall::ui
