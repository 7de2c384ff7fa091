// memwall import: a benchmark file users already have (vllm bench serve / throughput / latency,
// SGLang bench_serving, llama.cpp llama-bench, GuideLLM benchmarks.json, inference-perf stage
// reports, llm-d Benchmark Report v0.2, genai-perf and AIPerf profile exports; Megatron-LM / NeMo,
// torchtitan and nanotron training logs) read
// into measurement records (src/memwall/measure/import.h, docs/measurements.md "Importers"):
// the records document on stdout, ready for `memwall validate` and `memwall calibrate`, and what
// was not imported on stderr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "memwall/measure/import.h"
#include "memwall/measure/record.h"

namespace memwall::cli {
namespace {

struct ImportCliOptions {
  std::string file;
  measure::ImportOptions o;
};

int run_import(const ImportCliOptions& c, const GlobalOptions& g) {
  const CommandCatalog catalog(g);
  std::vector<std::string> notes;
  const auto records = measure::import_file(c.file, c.o, *catalog, notes);
  for (const auto& n : notes) std::cerr << "note: " << n << "\n";
  std::cout << measure::to_json(records).dump(2) << "\n";
  return 0;
}

}  // namespace

void register_import(CLI::App& app, GlobalOptions& g, Runner& run) {
  auto* sub = app.add_subcommand(
      "import",
      "Read a benchmark result file into measurement records (docs/measurements.md\n"
      "\"Importers\"): the records document on stdout for `memwall validate` and `memwall\n"
      "calibrate`, and on stderr each field that was not imported or was taken from a flag.\n"
      "What the file does not carry comes from the flags (the accelerator, the engine that\n"
      "served, the parallel sizes, the lengths when the file holds only totals); what is still\n"
      "missing, or a field that changes what was measured (gamma or constant-interval\n"
      "arrivals, a ramp-up, speculative decoding), exits 2 naming it. Units are read from the\n"
      "file. GuideLLM: the successful requests of each benchmark; inference-perf: one\n"
      "stage_<N>_lifecycle_metrics.json (a rate stage needs --load-type poisson); llm-d-report:\n"
      "llm-d-benchmark's Benchmark Report v0.2 (JSON or YAML; a rate needs --load-type poisson);\n"
      "genai-perf / AIPerf: the profile_export_genai_perf.json / profile_export_aiperf.json\n"
      "metric objects. Training logs (megatron-log, torchtitan-log, nanotron-log): the first\n"
      "logged interval is skipped as warm-up; the job's sizes come from the flags.");
  add_global_options(*sub, g);
  auto c = std::make_shared<ImportCliOptions>();
  measure::ImportOptions& o = c->o;
  sub->add_option("file", c->file, "The benchmark result file")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--format", o.format,
                  fmt::format("The file's format: {}", fmt::join(measure::import_formats(), ", ")))
      ->required();
  sub->add_option("--model", o.model,
                  "Model: zoo id, Hugging Face repository id or config.json (replaces the file's "
                  "model_id)");
  sub->add_option("--gpu", o.accelerator, "Accelerator id or alias the run used (h100, a100 ...)");
  sub->add_option("--gpus", o.devices, "Devices of the deployment (default tp x pp x dp)");
  sub->add_option("--tp", o.tp, "Tensor-parallel size of the run");
  sub->add_option("--pp", o.pp, "Pipeline-parallel size of the run");
  sub->add_option("--ep", o.ep, "Expert-parallel size of the run");
  sub->add_option("--dp", o.dp, "Data-parallel replicas of the run (default: --gpus / (tp x pp))");
  sub->add_option("--node", o.node, "Node id (default: the catalog's node of the accelerator)");
  sub->add_option("--fabric", o.fabric, "Fabric id, when a replica spans nodes");
  sub->add_option("--cpu", o.host_cpu, "Host CPU, recorded as free text");
  sub->add_option("--engine", o.engine,
                  "Serving engine that ran the model (data/engines): vllm, sglang, trtllm ...");
  sub->add_option("--engine-version", o.engine_version, "Its version, e.g. 0.10.2");
  sub->add_option("--weight-precision", o.weight_precision, "Weight precision of the run");
  sub->add_option("--activation-precision", o.activation_precision, "Activation precision");
  sub->add_option("--kv-precision", o.kv_precision, "KV-cache precision");
  sub->add_option("--max-num-seqs", o.max_num_seqs, "The engine's max sequences of the run");
  sub->add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                  "The engine's max batched tokens of the run");
  sub->add_option("--memory-utilization", o.memory_fraction,
                  "The engine's memory fraction (vLLM gpu_memory_utilization ...)");
  sub->add_option("--input", o.input,
                  "Input tokens per request: N | uniform:LO,HI | lognormal:MEAN,CV; where the file "
                  "lists or summarises each request's (input_lens, GuideLLM's prompt_token_count, "
                  "input_sequence_length) and they vary: fixed | uniform | uniform:LO,HI | "
                  "lognormal");
  sub->add_option("--output", o.output, "Output tokens per request (same forms as --input)");
  sub->add_option("--batch", o.batch, "vllm-latency: the run's --batch-size");
  sub->add_option("--load-type", o.load_type,
                  "inference-perf, llm-d-report: the run's arrival process (poisson or "
                  "concurrent), which the report does not carry");
  // Training logs (megatron-log, torchtitan-log, nanotron-log): what the log lines do not print.
  sub->add_option("--framework", o.framework,
                  "Training logs: megatron (default) or nemo for megatron-log; fsdp or "
                  "fsdp-compiled (required) for torchtitan-log; nanotron for nanotron-log");
  sub->add_option("--framework-version", o.framework_version, "Training logs: its version");
  sub->add_option("--cp", o.cp, "Training logs: context-parallel size of the job");
  sub->add_option("--vpp", o.vpp, "Training logs: virtual pipeline stages per rank");
  sub->add_option("--zero", o.zero, "Training logs: ZeRO stage (1: distributed optimizer)");
  sub->add_option("--precision", o.training_precision, "Training logs: bf16, fp16 or fp8");
  sub->add_option("--recompute", o.recompute, "Training logs: none, selective or full");
  sub->add_option("--micro-batch", o.micro_batch,
                  "Training logs: micro-batch per rank (--micro-batch-size, "
                  "training.local_batch_size, nanotron's mbs)");
  sub->add_option("--global-batch", o.global_batch,
                  "Training logs: global batch in sequences (megatron-log: when the lines print "
                  "none; torchtitan-log: training.global_batch_size)");
  sub->add_option("--seq-len", o.seq_len,
                  "Training logs: sequence length (--seq-length, training.seq_len)");
  sub->callback([&run, &g, c] { run = [&g, c] { return run_import(*c, g); }; });
}

}  // namespace memwall::cli
