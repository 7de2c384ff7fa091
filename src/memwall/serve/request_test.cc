#include "memwall/serve/request.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

SimulateRequest base() {
  SimulateRequest r;
  r.model = "llama-3.1-8b";
  r.gpu = "h100";
  return r;
}

TEST(SimulateRequest, ExactlyOneLoadSource) {
  SimulateRequest r = base();
  EXPECT_THROW(to_options(r), InputError);  // none
  r.rate = 2;
  r.concurrency = 4;
  EXPECT_THROW(to_options(r), InputError);  // two
  r.rate.reset();
  const ServingOptions o = to_options(r);
  EXPECT_EQ(o.workload.arrival.kind, ArrivalKind::closed_loop);
  EXPECT_EQ(o.workload.arrival.concurrency, 4);
}

TEST(SimulateRequest, TokenBudgetDefaultsAsVllm) {
  SimulateRequest r = base();
  r.rate = 1;
  EXPECT_EQ(to_options(r).scheduler.token_budget, 2048);
  r.max_len = 8192;
  EXPECT_EQ(to_options(r).scheduler.token_budget, 8192);  // max(max_model_len, 2048)
  r.scheduler = "chunked";
  EXPECT_EQ(to_options(r).scheduler.token_budget, 2048);
  r.token_budget = 512;
  EXPECT_EQ(to_options(r).scheduler.token_budget, 512);
}

TEST(SimulateRequest, BadValuesAreInputErrors) {
  SimulateRequest r = base();
  r.rate = -1;
  EXPECT_THROW(to_options(r), InputError);
  r.rate = 1;
  r.preempt = "drop";
  EXPECT_THROW(to_options(r), InputError);
  r.preempt = "swap";
  r.memory_utilization = 1.5;
  EXPECT_THROW(to_options(r), InputError);
}

}  // namespace
}  // namespace memwall::serve
