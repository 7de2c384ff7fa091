// The work offered to a serving system: when requests arrive (Poisson, bursty gamma, closed-loop
// concurrency or a replayed trace) and how long their prompts and outputs are (fixed, uniform,
// log-normal or empirical lengths, with presets for published datasets). Seeded and reproducible:
// lengths and arrival gaps come from separate random streams, so changing the rate keeps the
// lengths.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace memwall::serve {

// One request as offered to the server.
struct Request {
  double arrival_s = 0;       // seconds from the start of the run
  int32_t input_tokens = 0;   // prompt length
  int32_t output_tokens = 0;  // tokens to generate (>= 1)
  int32_t prefix_id = -1;     // requests with equal id share a prompt prefix; -1: none
  int32_t prefix_tokens = 0;  // length of that shared prefix (<= input_tokens)
};

// A distribution of token counts.
class LengthDistribution {
 public:
  enum class Kind { fixed, uniform, lognormal, empirical };

  static LengthDistribution fixed(int tokens);
  static LengthDistribution uniform(int lo, int hi);            // inclusive bounds
  static LengthDistribution lognormal(double mean, double cv);  // mean and coefficient of variation
  static LengthDistribution empirical(std::vector<int> values);  // each value equally likely
  // "fixed:N", "uniform:LO,HI", "lognormal:MEAN,CV", "empirical:V1,V2,..." or "empirical:@FILE"
  // (whitespace/comma separated integers). InputError naming `field` otherwise.
  static LengthDistribution parse(const std::string& spec, const std::string& field);

  int sample(std::mt19937_64& rng) const;  // >= 1
  double mean() const;                     // of the untruncated distribution
  std::string describe() const;
  Kind kind() const { return kind_; }

 private:
  Kind kind_ = Kind::fixed;
  double a_ = 1, b_ = 1;  // fixed: a; uniform: [a, b]; lognormal: mean a, cv b
  double mu_ = 0, sigma_ = 0;
  std::vector<int> values_;
};

// Input and output length distributions of a named dataset, with where the statistics come from.
struct Dataset {
  std::string name;
  std::string source;  // the publication the statistics are taken from, and what is assumed
  LengthDistribution input = LengthDistribution::fixed(1);
  LengthDistribution output = LengthDistribution::fixed(1);
  int max_input_tokens = 0;  // 0: no limit; longer samples are drawn again
  int max_total_tokens = 0;  // 0: no limit; input + output longer than this are drawn again
};

// "sharegpt", "alpaca" or "fixed:IN,OUT".
Dataset dataset_preset(const std::string& name);
std::vector<std::string> dataset_names();

enum class ArrivalKind { poisson, gamma, closed_loop, trace };

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  double rate_per_s = 1;  // poisson, gamma: mean arrival rate
  double cv = 1;          // gamma: coefficient of variation of the gaps (1 = Poisson)
  int concurrency = 1;    // closed_loop: clients, each sends its next request when one finishes
  // closed_loop: client i sends its first request at i x ramp_s / concurrency (0: all at t = 0).
  // A ramp of about one request's latency starts the run near its steady state instead of with
  // every client's prompt queued at once.
  double ramp_s = 0;
};

struct WorkloadSpec {
  ArrivalSpec arrival;
  Dataset lengths;
  int64_t requests = 1000;  // synthetic workloads; a trace supplies its own count
  uint64_t seed = 1;
  std::vector<Request> trace;  // arrival = trace
  // Prefix reuse: the first floor(prefix_share x input) tokens of each prompt are the start of one
  // of prefix_pool shared contexts (a document, a system prompt, a conversation's history), drawn
  // uniformly from a stream of their own; 0: none. Trace rows that name a prefix keep theirs.
  double prefix_share = 0;
  int64_t prefix_pool = 100;
};

// Produces the requests one at a time (O(1) memory for synthetic workloads), in arrival order.
// For closed-loop arrivals the arrival time is set by the simulator (0 here).
class RequestSource {
 public:
  explicit RequestSource(const WorkloadSpec& spec);
  int64_t total() const { return total_; }
  bool next(Request& out);  // false when exhausted
  const WorkloadSpec& spec() const { return spec_; }

 private:
  WorkloadSpec spec_;
  int64_t total_ = 0, produced_ = 0;
  double clock_s_ = 0;
  std::mt19937_64 length_rng_, arrival_rng_, prefix_rng_;
  int32_t prefix_base_ = 0;  // synthetic prefix ids start above the trace's own
  void assign_prefix(Request& r);
};

// Checks a workload for contradictions and out-of-range values (InputError).
void validate(const WorkloadSpec& spec);

}  // namespace memwall::serve
