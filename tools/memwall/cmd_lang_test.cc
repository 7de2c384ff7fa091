// The reports in Chinese (issue 33): `plan`, `infer`, `train`, `simulate`, `net`, `compare` and
// `monitor --advise` under --lang zh print their sentences through the message catalog (the ids,
// numbers and table cells as they are), --json is the same bytes in either language, and
// --lang en is the library's English, untouched.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "memwall/catalog/catalog.h"
#include "memwall/core/test_paths.h"
#include "memwall/monitor/fake_prometheus.h"

namespace {

using memwall::cli_test::Result;
using memwall::cli_test::run;

// What stays in its own language in a Chinese report: ids and values (tokens with digits, dots,
// slashes, hyphens, underscores or '=' (Prometheus labels) are never words here), acronyms and
// column names in capitals, and the words below.
const std::set<std::string>& kept_words() {
  static const std::set<std::string> words = [] {
    std::set<std::string> out{
        // technical terms Chinese engineers write in English
        "prompt", "token", "tokens", "prefill", "decode", "batching", "continuous", "step",
        "kernel", "tensor", "rank", "chunk", "leaf", "goodput", "cache", "fabric", "risk", "busbw",
        "algbw", "intervals", "lognormal", "PCIe", "NVMe", "NVLink", "NVSwitch", "InfiniBand",
        "Hopper", "Adam", "FlashAttention", "ZeRO", "Simple", "rack", "uncal",
        // memwall's commands, options' values and the ids its JSON holds (bound, algorithm,
        // collective, framework and engine ids, the nccl-tests column names)
        "memwall", "plan", "infer", "simulate", "compare", "monitor", "prometheus", "docs",
        "catalog", "validate", "quality", "unknown", "confidence", "high", "averse", "none", "auto",
        "default", "full", "selective", "blockwise", "tensorwise", "memory", "compute", "overhead",
        "communication", "ring", "tree", "nvls", "hierarchical", "pairwise", "allreduce",
        "reducescatter", "allgather", "alltoall", "broadcast", "sendrecv", "size", "time",
        "megatron", "nemo", "fsdp", "deepspeed", "nanotron", "mindspeed", "vllm", "sglang",
        "trtllm", "lmdeploy", "mindie",
        // products
        "vLLM", "SGLang", "MindIE", "Ascend", "ROCm", "DeepSpeed", "HiCache", "LMCache",
        "KTransformers", "FlexGen", "Nsight", "Systems"};
    // Vendor names as the catalog spells them (what --vendors takes): "Moore Threads", "Hygon".
    for (const auto& a : memwall::Catalog::builtin().accelerators()) {
      std::istringstream vendor(a.vendor);
      for (std::string w; vendor >> w;) out.insert(w.substr(0, w.find_first_of("(),")));
      for (size_t p = a.vendor.find('('); p != std::string::npos; p = a.vendor.find('(', p + 1))
        out.insert(a.vendor.substr(p + 1, a.vendor.find(')', p) - p - 1));
    }
    return out;
  }();
  return words;
}

// Words of four or more ASCII letters left in a line outside text quoted in 「」 (a source's own
// words: a datasheet's name, a benchmark's note) and outside kept_words().
std::vector<std::string> english_words(std::string s) {
  for (size_t a = s.find("「"), b;
       a != std::string::npos && (b = s.find("」", a)) != std::string::npos; a = s.find("「"))
    s.erase(a, b - a + std::string("」").size());
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    const bool word = token.size() >= 4 && std::all_of(token.begin(), token.end(), [](char c) {
                        return std::isalpha(static_cast<unsigned char>(c));
                      });
    // A word in capitals is an acronym or a column the legend names (TPOT, DEVICES, FILE).
    const bool capitals = std::none_of(token.begin(), token.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c));
    });
    if (word && !capitals && !kept_words().count(token)) out.push_back(token);
    token.clear();
  };
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '/' || c == ':' || c == '$' || c == '=')
      token += c;
    else
      flush();
  }
  flush();
  return out;
}

// The cells of a line: its text between runs of two or more spaces.
long cells(const std::string& line) {
  static const std::regex gap("  +");
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return 0;
  std::string body = line.substr(start);
  while (!body.empty() && body.back() == ' ') body.pop_back();
  return std::distance(std::sregex_token_iterator(body.begin(), body.end(), gap, -1),
                       std::sregex_token_iterator());
}

// A line of three or more cells (a table's header or row, a frontier point) holds column names,
// ids and numbers; a line in capitals is a table's header. Every other line is read as a
// sentence, a label with its value included.
bool is_sentence(const std::string& line) {
  return cells(line) <= 2 && std::any_of(line.begin(), line.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c));
         });
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// A recording of two GPUs over three passes with the same readings (JSON fields of a sample).
std::string recording(const std::string& name, const std::string& fields) {
  std::string out;
  for (int pass = 0; pass < 3; ++pass)
    for (int gpu = 0; gpu < 2; ++gpu)
      out += "{\"time_s\":" + std::to_string(1764450000 + pass) +
             ",\"index\":" + std::to_string(gpu) + ",\"name\":\"NVIDIA H100 80GB HBM3\"," + fields +
             "}\n";
  return write_file(name, out);
}

struct Case {
  std::string args;
  int status = 0;
};

// Each report with the option sets people run it with: the defaults, tensor parallelism, a
// sweep, continuous batching, offload, explain tables, a request that does not fit (the error
// on stderr), multi-node training, simulation with an SLA, swap and host cache, the network
// alone, explained and compared, the scorecard, and the advisor on every wall it names.
std::vector<Case> cases() {
  const std::string decode =
      recording("lang_decode.jsonl",
                "\"sm_active_ratio\":0.55,\"dram_bw_util_ratio\":0.7,\"tensor_active_ratio\":0.08,"
                "\"gpu_util_ratio\":1");
  const std::string compute =
      recording("lang_compute.jsonl",
                "\"sm_active_ratio\":0.9,\"dram_bw_util_ratio\":0.3,\"tensor_active_ratio\":0.6,"
                "\"gpu_util_ratio\":1");
  const std::string starved =
      recording("lang_starved.jsonl",
                "\"sm_active_ratio\":0.3,\"dram_bw_util_ratio\":0.1,\"tensor_active_ratio\":0.05,"
                "\"gpu_util_ratio\":1");
  const std::string mixed =
      recording("lang_mixed.jsonl",
                "\"sm_active_ratio\":0.8,\"dram_bw_util_ratio\":0.3,\"tensor_active_ratio\":0.2,"
                "\"gpu_util_ratio\":1");
  const std::string clocks =
      recording("lang_clocks.jsonl",
                "\"sm_active_ratio\":0.9,\"dram_bw_util_ratio\":0.3,\"tensor_active_ratio\":0.6,"
                "\"gpu_util_ratio\":1,\"throttle_reasons\":4,\"sm_clock_mhz\":1500");
  const std::string coarse = recording("lang_coarse.jsonl", "\"gpu_util_ratio\":1");
  const std::string idle =
      recording("lang_idle.jsonl", "\"sm_active_ratio\":0,\"gpu_util_ratio\":0");
  const std::string no_dram =
      recording("lang_nodram.jsonl",
                "\"sm_active_ratio\":0.8,\"tensor_active_ratio\":0.6,\"gpu_util_ratio\":1");
  const std::string deployment = " --model llama-3.1-8b --gpu h100 --input 512 --output 256";
  return {
      {"plan"},
      {"infer --model llama-3.1-8b --gpu h100 --input 512 --output 256"},
      {"infer --model llama-3.1-70b --gpu h100 --tp 4 --input 2048 --output 512 --engine vllm "
       "--batch 8"},
      {"infer --model llama-3.1-8b --gpu h100 --input 1024 --output 256 --batch max --engine vllm"},
      {"infer --model llama-3.1-8b --gpu h100 --input 512 --output 256 --batch 1,8,64,4096"},
      {"infer --model llama-3.1-70b --gpu rtx-4090 --input 512 --output 128 --offload auto"},
      {"infer --model deepseek-v3 --gpu h200 --tp 8 --input 1024 --output 256 "
       "--weight-precision fp8 --engine sglang"},
      {"infer --model qwen2.5-7b --gpu ascend-910b --input 512 --output 256 --engine mindie"},
      {"infer --model llama-3.1-8b --gpu h100 --input 512 --output 64 --explain"},
      {"infer --model llama-3.1-70b --gpu h100 --input 512 --output 256", 3},
      {"infer --model qwen2.5-72b --gpu rtx-4090 --input 512 --output 64 --offload kv", 3},
      {"infer --model llama-3.1-70b --gpu h100 --tp 8 --pp 2 --input 512 --output 256", 2},
      {"train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 --global-batch 64 "
       "--seq 4096 --explain"},
      {"train --model llama-3.1-70b --gpu h100 --gpus 64 --tp 8 --pp 2 --micro-batch 1 "
       "--global-batch 512 --seq 4096 --tokens 1e12 --price-per-gpu-hour 2"},
      {"train --model llama-3.1-8b --gpu h100 --gpus 8 --micro-batch 1 --global-batch 64 "
       "--seq 4096 --offload optimizer:cpu"},
      {"train --model llama-3.1-70b --gpu h100 --gpus 8 --micro-batch 1 --global-batch 64 "
       "--seq 4096",
       3},
      {"train --model mixtral-8x7b --gpu h100 --gpus 64 --tp 2 --ep 8 --pp 2 --vpp 2 "
       "--micro-batch 1 --global-batch 256 --seq 4096"},
      {"train --model llama-3.1-8b --gpu a100 --gpus 8 --micro-batch 2 --global-batch 64 "
       "--seq 4096 --framework fsdp"},
      {"simulate --model llama-3.1-8b --gpu h100 --rate 5 --requests 200"},
      {"simulate --model llama-3.1-8b --gpu h100 --concurrency 64 --requests 200 --engine vllm "
       "--engine-limits"},
      {"simulate --model llama-3.1-8b --gpu h100 --rate 10 --requests 200 --scheduler "
       "disaggregated --prefill-replicas 1 --decode-replicas 1"},
      {"simulate --model llama-3.1-8b --gpu h100 --rate 20 --requests 300 --sla "
       "ttft_p99=500ms,tpot_p99=20ms --prefix-hit-rate 0.5 --host-kv-cache 16 --preempt swap "
       "--kv-capacity-tokens 20000"},
      {"net --node hgx-h100"},
      {"net --node hgx-h100 --nodes 4 --fabric ib-ndr --explain --sizes 1G"},
      {"net --compare hgx-h100 pcie-4090"},
      {"net --node hgx-h100 --nodes 16 --fabric roce-400 --oversubscription 2 --explain "
       "--sizes 256M --op alltoall"},
      {"compare"},
      {"compare --domestic-only --model qwen2.5-7b"},
      {"compare --explain --model qwen2.5-7b --gpus h100,mi300x,910b,c500,k100,p800,s4000,gaudi3"},
      {"compare --scenario long-context --gpus h100,h200,mi300x,910b,910c,c500,p800,a10"},
      {"compare --scenario training --gpus h100,910b,c500,p800,4090"},
      {"compare --pricing cloud --model llama-3.1-8b"},
      {"compare --precision fp8 --model qwen2.5-72b --vendors nvidia,amd", 3},
      {"monitor --replay " + decode + " --advise"},
      {"monitor --replay " + decode + " --advise --tp 2 --batch 4" + deployment},
      {"monitor --replay " + compute + " --advise"},
      {"monitor --replay " + starved + " --advise"},
      {"monitor --replay " + mixed + " --advise"},
      {"monitor --replay " + clocks + " --advise"},
      {"monitor --replay " + coarse + " --advise"},
      {"monitor --replay " + idle + " --advise"},
      {"monitor --replay " + no_dram + " --advise" + deployment},
  };
}

// Every sentence the Chinese report prints (stdout, and the error on stderr) has no English
// word left; the report does say something in Chinese.
TEST(LangZh, NoReportHasAnEnglishSentenceLeft) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args + " --lang zh", "2>&1");
    ASSERT_EQ(r.status, c.status) << r.out.substr(0, 2000);
    std::istringstream lines(r.out);
    int sentences = 0;
    for (std::string line; std::getline(lines, line);) {
      if (!is_sentence(line)) continue;
      ++sentences;
      const auto words = english_words(line);
      EXPECT_TRUE(words.empty()) << "English left: " << line.substr(0, 300) << " ("
                                 << (words.empty() ? "" : words.front()) << ")";
    }
    EXPECT_GT(sentences, 0);
  }
}

TEST(LangZh, ThePlanReportIsInChinese) {
  const Result r = run("plan --lang zh");
  ASSERT_EQ(r.status, 0);
  for (const char* heading :
       {"1. 先不看硬件：这个负载需要什么", "3. 每个方案撞上的墙，以及它的软件风险", "4. 帕累托前沿",
        "5. 没有可行方案的加速器"})
    EXPECT_NE(r.out.find(heading), std::string::npos) << heading;
}

// The live monitor prints its view as it samples and localises its closing advice itself
// (through the fake driver library, tools/memwall/testdata/fake_nvml.cc).
TEST(LangZh, TheLiveMonitorsAdviceIsInChinese) {
  const Result r =
      run("monitor --duration 0.3 --interval-ms 100 --advise --lang zh --nvml-library " +
          memwall::test::fake_nvml_library());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("撞上的墙："), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wall: "), std::string::npos) << r.out;
}

// A fleet through Prometheus (src/memwall/monitor/testdata): dcgm-exporter's series with the
// advisor per job and per GPU, and vLLM's with the engine's operating point and memwall's estimate
// beside it.
TEST(LangZh, ThePrometheusReportIsInChinese) {
  using memwall::monitor::fixtures::FakePrometheus;
  using memwall::monitor::fixtures::testdata;
  FakePrometheus dcgm("", testdata("prom-dcgm-range.json"));
  FakePrometheus vllm("", testdata("prom-vllm-0.10-range.json"));
  for (const std::string& args :
       {"monitor --prometheus " + dcgm.url() + " --advise",
        "monitor --prometheus " + vllm.url() + " --window 1m --gpu h100 --engine-version 0.10.1"}) {
    SCOPED_TRACE(args);
    const Result r = run(args + " --lang zh", "2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    std::istringstream lines(r.out);
    int sentences = 0;
    for (std::string line; std::getline(lines, line);) {
      if (!is_sentence(line)) continue;
      ++sentences;
      const auto words = english_words(line);
      EXPECT_TRUE(words.empty()) << "English left: " << line.substr(0, 300) << " ("
                                 << (words.empty() ? "" : words.front()) << ")";
    }
    EXPECT_GT(sentences, 5) << r.out;
    auto answer = [&args](const std::string& lang) {
      nlohmann::json j = nlohmann::json::parse(run(args + " --json --lang " + lang).out);
      j.erase("start_s");  // the window ends now
      j.erase("end_s");
      return j.dump();
    };
    EXPECT_EQ(answer("zh"), answer("en"));
  }
}

// A table row keeps its cells: the ids and numbers of `compare`'s rows and `net`'s curve are
// the same bytes in either language, so the output stays scriptable.
TEST(LangZh, TableRowsKeepTheirCells) {
  for (const std::string& args : std::vector<std::string>{
           "compare --domestic-only --model qwen2.5-7b", "net --node hgx-h100"}) {
    const Result zh = run(args + " --lang zh");
    const Result en = run(args + " --lang en");
    ASSERT_EQ(zh.status, 0);
    std::set<std::string> en_rows;
    std::istringstream e(en.out);
    for (std::string line; std::getline(e, line);)
      if (cells(line) > 2) en_rows.insert(line);
    std::istringstream z(zh.out);
    int rows = 0;
    for (std::string line; std::getline(z, line);)
      if (cells(line) > 2) {
        ++rows;
        EXPECT_TRUE(en_rows.count(line)) << args << ": " << line;
      }
    EXPECT_GT(rows, 10) << args;
  }
}

// --json is the same bytes whatever the language (the error of a request that does not fit is
// on stderr, localised, and not part of the JSON).
TEST(LangZh, JsonIsTheSameBytesInEitherLanguage) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.args);
    auto answer = [&c](const std::string& lang) {
      const Result r = run(c.args + " --json --lang " + lang);
      EXPECT_EQ(r.status, c.status);
      if (c.status != 0) return r.out;
      nlohmann::json j = nlohmann::json::parse(r.out);
      j.erase("search_seconds");  // plan's timing, different on every run
      return j.dump();
    };
    EXPECT_EQ(answer("zh"), answer("en"));
  }
  const Result zh = run("plan infer --json --concurrency 20 --model qwen2.5-7b --lang zh");
  const Result en = run("plan infer --json --concurrency 20 --model qwen2.5-7b --lang en");
  auto without_timing = [](const std::string& out) {
    nlohmann::json j = nlohmann::json::parse(out);
    j.erase("search_seconds");
    return j.dump();
  };
  EXPECT_EQ(without_timing(zh.out), without_timing(en.out));
}

// The English report is the library's text as it is: the catalog is not in the way (no line of
// it is Chinese, and it reads as the English templates say).
TEST(LangZh, EnglishReportsAreUntouched) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args + " --lang en", "2>&1");
    ASSERT_EQ(r.status, c.status);
    // UTF-8 lead bytes 0xE4-0xE9 begin the CJK ideographs and 0xE3 the CJK punctuation (「」、).
    for (unsigned char ch : r.out) ASSERT_FALSE(ch >= 0xE3 && ch <= 0xE9) << r.out.substr(0, 500);
  }
  const Result plan = run("plan --lang en");
  EXPECT_NE(plan.out.find("1. What the workload needs, before any hardware is named"),
            std::string::npos);
  const Result infer =
      run("infer --model llama-3.1-8b --gpu h100 --input 512 --output 256 --lang en");
  EXPECT_NE(infer.out.find("  end-to-end       "), std::string::npos);
}

}  // namespace
