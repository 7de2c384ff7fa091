// The question the planner answers, before any hardware is named: a model, the load offered to it
// (arrival rate or concurrent users), prompt/output lengths and the latency targets (SLA).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memwall/core/units.h"
#include "memwall/serve/workload.h"

namespace memwall::plan {

// A length and the fraction of requests it stands for.
struct WeightedLength {
  double tokens = 0;
  double weight = 0;
};

// Summary statistics of a token-length distribution (the serving simulator samples the full one).
struct Lengths {
  double mean = 0;
  double p99 = 0;  // 99th percentile, for tail latency (TTFT p99 uses the p99 prompt)
  std::string description;
  // The distribution as weighted lengths of the same draws (38 quantile bands, finest in the low
  // tail; equal lengths merged; weights sum to 1): what a per-request tail over lengths needs
  // (the TPOT p99 of short outputs). Empty: every request at `mean`.
  std::vector<WeightedLength> points;
};

struct Sla {
  Seconds ttft_p99;                // arrival to first token
  Seconds tpot_p99;                // mean time between output tokens after the first
  std::optional<Seconds> e2e_p99;  // ttft + (output - 1) x tpot
};

struct Load {
  std::optional<double> rate_per_s;  // open loop: requests per second
  std::optional<double> concurrency;  // closed loop: users each with one request in flight
};

struct InferenceWorkload {
  Load load;
  Lengths input, output;
  Sla sla;
  // The mean context (prompt + tokens generated so far) of a sequence in flight, averaged over
  // time: a sequence of n output tokens stays n decode steps, so long outputs are over-represented
  // (length-biased sampling): E[out x (in + out / 2)] / E[out]. With lognormal lengths of CV 1
  // (the ShareGPT preset) 438 tokens where input.mean + output.mean / 2 is 317. 0: lengths are
  // fixed, and it is that.
  double context_in_flight = 0;
  // The standard deviation of that context over the sequences in flight (same weighting; a
  // sequence is seen at a uniform point of its output); 0: not known, taken as none.
  double context_in_flight_sd = 0;
  double mean_context() const {
    return context_in_flight > 0 ? context_in_flight : input.mean + output.mean / 2.0;
  }
  void validate() const;  // InputError: exactly one of rate/concurrency, positive finite numbers
};

// Prompt and output length distributions from --input/--output: a dataset preset of the serving
// simulator ("sharegpt", "alpaca": the preset's own distribution and length limits), a
// distribution ("fixed:N", "uniform:LO,HI", "lognormal:MEAN,CV", "empirical:...") or a bare
// token count N (fixed).
serve::Dataset parse_lengths(const std::string& input, const std::string& output);

// Mean and p99 of the input and output lengths, from 20,000 requests drawn (seed 1) exactly as the
// simulator draws them (limits applied), so the analytic plan and --verify see the same lengths.
// `in_flight` (when given): InferenceWorkload::context_in_flight and context_in_flight_sd are set
// from the same requests.
void summarize_lengths(const serve::Dataset& d, Lengths& input, Lengths& output,
                       InferenceWorkload* in_flight = nullptr);

// Parses "ttft_p99=1,tpot_p99=0.05[,e2e_p99=20]" (seconds; suffix ms allowed).
Sla parse_sla(const std::string& spec);

}  // namespace memwall::plan
