// A plan whose answer is no longer wanted (the HTTP server's client went away) stops at the
// search's next checkpoint with Cancelled, instead of running to its end.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "memwall/core/cancel.h"
#include "memwall/plan/query.h"

namespace memwall::plan {
namespace {

using Clock = std::chrono::steady_clock;

TEST(PlanCancel, ASetFlagStopsTheSearchPromptly) {
  InferenceQuery q;
  q.model = "llama-3.1-405b";  // ~0.7 s of search: every precision of every accelerator
  q.concurrency = 3000;
  q.quality = "any";
  const auto start = Clock::now();
  ASSERT_FALSE(
      answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q)->result.plans.empty());
  const auto full = Clock::now() - start;

  CancelFlag cancel{false};
  q.cancel = &cancel;
  Clock::time_point set_at;
  std::thread client_leaves([&] {
    std::this_thread::sleep_for(full / 10);
    set_at = Clock::now();
    cancel = true;
  });
  EXPECT_THROW(answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q), Cancelled);
  const auto stopped = Clock::now();
  client_leaves.join();
  // One shape's evaluation is a few ms; a quarter of the whole search is a wide margin.
  EXPECT_LT(stopped - set_at, full / 4)
      << "full plan " << std::chrono::duration<double>(full).count() << " s, stopped "
      << std::chrono::duration<double>(stopped - set_at).count() << " s after the flag";
}

TEST(PlanCancel, NoFlagOrAnUnsetOneChangesNothing) {
  InferenceQuery q;
  q.concurrency = 300;
  const Json plain = to_json(*answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q));
  CancelFlag cancel{false};
  q.cancel = &cancel;
  Json watched = to_json(*answer_inference(Catalog::builtin(), cost::PriceBook::builtin(), q));
  watched.erase("search_seconds");
  Json expected = plain;
  expected.erase("search_seconds");
  EXPECT_EQ(watched, expected);
}

}  // namespace
}  // namespace memwall::plan
