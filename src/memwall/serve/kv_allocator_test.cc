#include "memwall/serve/kv_allocator.h"

#include <gtest/gtest.h>

#include "memwall/core/error.h"

namespace memwall::serve {
namespace {

TEST(BuddyArena, SplitsAndMergesWithinTheBinaryDecomposition) {
  BuddyArena a(12);  // top blocks [0,8) and [8,12)
  EXPECT_EQ(a.max_order(), 3);
  EXPECT_EQ(a.allocate(3), 0);
  EXPECT_EQ(a.allocate(2), 8);
  EXPECT_EQ(a.allocate(0), -1);
  EXPECT_EQ(a.free_slots(), 0);
  a.release(0, 3);
  EXPECT_EQ(a.allocate(1), 0);  // splits [0,8) into 2 + 2 + 4
  EXPECT_EQ(a.allocate(1), 2);
  EXPECT_EQ(a.largest_free(), 4);
  a.release(0, 1);
  a.release(2, 1);
  EXPECT_EQ(a.largest_free(), 8);  // merged back
  EXPECT_EQ(a.free_slots(), 8);
}

TEST(KvAllocator, MaxReservationFitsSevenOpt13bRequestsOnAnA100_40GB) {
  // Kwon et al. 2023 Table 1: 15.7K KV slots for OPT-13B on one A100-40GB; 2048-token reservations.
  KvAllocator kv({KvPolicy::contiguous_max, 15728, 16, 2048, 0.01});
  KvSeq s[8];
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(kv.admit(s[i], 100, 399, -1, 0, false)) << i;
  EXPECT_FALSE(kv.admit(s[7], 100, 399, -1, 0, false));
  EXPECT_EQ(kv.reserved_tokens(), 7 * 2048);
  EXPECT_EQ(kv.overhead_tokens(), 0);
  EXPECT_EQ(kv.free_tokens(), 15728 - 7 * 2048);  // 1392 slots no request can use
  for (int i = 0; i < 7; ++i) kv.release(s[i], 399);
  EXPECT_EQ(kv.free_tokens(), 15728);
  EXPECT_EQ(kv.allocated_count(), kv.freed_count());
}

TEST(KvAllocator, Pow2ReservesPromptPlusRoundedOutputAndBuddyRoundsTheTotal) {
  KvAllocator kv({KvPolicy::contiguous_pow2, 4096, 16, 2048, 0.01});
  // prompt 100, final 399: 299 output slots -> 512; reservation 612, buddy block 1024.
  EXPECT_EQ(kv.reservation_tokens(100, 399), 612);
  KvSeq s;
  ASSERT_TRUE(kv.admit(s, 100, 399, -1, 0, false));
  EXPECT_EQ(kv.reserved_tokens(), 612);
  EXPECT_EQ(kv.overhead_tokens(), 1024 - 612);
  // Capped at the model's maximum length but never below the final length.
  EXPECT_EQ(kv.reservation_tokens(1500, 1999), 1500 + 512);
  EXPECT_EQ(kv.reservation_tokens(1600, 2040), 2048);
}

TEST(KvAllocator, OracleReservesExactlyTheFinalLength) {
  KvAllocator kv({KvPolicy::contiguous_oracle, 4096, 16, 2048, 0.01});
  EXPECT_EQ(kv.reservation_tokens(100, 399), 399);
  KvSeq s;
  ASSERT_TRUE(kv.admit(s, 100, 399, -1, 0, false));
  EXPECT_EQ(kv.overhead_tokens(), 512 - 399);
}

TEST(KvAllocator, PagedCountsBlocksAndLosesOnlyTheRemainder) {
  KvAllocator kv({KvPolicy::paged, 1000, 16, 2048, 0.01});
  EXPECT_EQ(kv.total_blocks(), 62);
  EXPECT_EQ(kv.overhead_tokens(), 1000 - 62 * 16);
  KvSeq s;
  ASSERT_TRUE(kv.admit(s, 33, 100, -1, 0, true));  // 3 blocks
  EXPECT_EQ(kv.free_blocks(), 59);
  EXPECT_TRUE(kv.grow(4));
  EXPECT_FALSE(kv.grow(56));  // only 55 free: nothing changes
  EXPECT_EQ(kv.free_blocks(), 55);
  kv.release(s, 100);  // 7 blocks held
  EXPECT_EQ(kv.free_blocks(), 62);
  EXPECT_EQ(kv.allocated_count(), 7);
  EXPECT_EQ(kv.freed_count(), 7);
}

TEST(KvAllocator, ReserveFinalPromisesTheWholeLengthAtAdmission) {
  // TensorRT-LLM GUARANTEED_NO_EVICT: 100 blocks; a 33-token prompt that will end at 100 tokens
  // holds 3 blocks and is promised 4 more; admission counts the promises of those running.
  KvConfig c{KvPolicy::paged, 1600, 16, 2048, 0.0};
  c.reserve_final = true;
  KvAllocator kv(c);
  std::vector<KvSeq> s(15);
  for (int i = 0; i < 14; ++i) ASSERT_TRUE(kv.admit(s[i], 33, 100, -1, 0, true)) << i;
  EXPECT_EQ(kv.free_blocks(), 100 - 14 * 3);
  EXPECT_EQ(kv.reserved_future_blocks(), 14 * 4);
  EXPECT_FALSE(kv.admit(s[14], 33, 100, -1, 0, true));  // 7 blocks wanted, 2 unpromised left
  EXPECT_EQ(kv.free_blocks(), 58);
  // Growing into the promise always succeeds and uses it up.
  EXPECT_TRUE(kv.grow(14 * 4));
  EXPECT_EQ(kv.reserved_future_blocks(), 0);
  EXPECT_EQ(kv.free_blocks(), 2);
  // A sequence that leaves early returns its untaken promise with its blocks.
  KvAllocator early(c);
  KvSeq a;
  ASSERT_TRUE(early.admit(a, 33, 100, -1, 0, true));
  early.release(a, 40);  // 3 blocks held, 4 promised
  EXPECT_EQ(early.free_blocks(), 100);
  EXPECT_EQ(early.reserved_future_blocks(), 0);
  // Without the reservation (vLLM) the same cache admits 33 such prompts.
  KvAllocator vllm({KvPolicy::paged, 1600, 16, 2048, 0.0});
  int admitted = 0;
  for (KvSeq x; vllm.admit(x, 33, 100, -1, 0, true);) ++admitted;
  EXPECT_EQ(admitted, 33);
}

TEST(KvAllocator, PagedSharesFullPrefixBlocksCopyOnWrite) {
  KvAllocator kv({KvPolicy::paged, 1600, 16, 2048, 0.0});
  KvSeq a, b;
  // 40-token shared prefix: two full blocks shared, the partial third block is each one's own.
  ASSERT_TRUE(kv.admit(a, 50, 60, 7, 40, true));  // 4 blocks, 2 of them the prefix
  EXPECT_EQ(kv.resident_prefix_tokens(7, 40), 32);
  ASSERT_TRUE(kv.admit(b, 50, 60, 7, 40, true));  // 2 more
  EXPECT_EQ(kv.free_blocks(), 100 - 6);
  EXPECT_EQ(kv.prefix_resident_tokens(), 32);
  kv.release(a, 60);  // its 2 private blocks; the prefix stays for b
  EXPECT_EQ(kv.free_blocks(), 96);
  kv.release(b, 60);
  EXPECT_EQ(kv.free_blocks(), 100);
  EXPECT_EQ(kv.allocated_count(), kv.freed_count());
}

TEST(KvAllocator, RejectsImpossibleConfigurations) {
  EXPECT_THROW(KvAllocator({KvPolicy::paged, 0, 16, 2048, 0.01}), InfeasibleError);
  EXPECT_THROW(KvAllocator({KvPolicy::paged, 8, 16, 2048, 0.01}), InfeasibleError);
  EXPECT_THROW(KvAllocator({KvPolicy::paged, 1000, 0, 2048, 0.01}), InputError);
  EXPECT_THROW(parse_kv_policy("pagd"), InputError);
  KvAllocator kv({KvPolicy::contiguous_max, 1000, 16, 2048, 0.01});
  EXPECT_FALSE(kv.fits_empty(10, 100));  // a 2048 reservation never fits in 1000 slots
}

}  // namespace
}  // namespace memwall::serve
