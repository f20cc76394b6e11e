// QuotaBook: Kueue's cohort arithmetic, worked by hand (quota_book.hpp states the rules).

#include "engine/policy/queues/quota_book.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace quota_book_test {

constexpr int64_t kGpu = 1000;  // milli-GPUs per GPU

QueueSpec queue(std::string name, std::string cohort, int64_t gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kQuotaGpu] = gpus * kGpu;
  return q;
}

ResourceVector gpus(const QuotaBook& book, int q, int64_t n) {
  return book.usage(q, n * kGpu, "A100-80G", 0, 0);
}

// a: nominal 64, lendingLimit 8 (keeps 56 for itself); b: nominal 32. Cohort capacity =
// (64 − 56) + 32 = 40. a using 60 counts 60 − 56 = 4 of it, so b may use 40 − 4 = 36:
// 4 above its nominal 32.
TEST(QuotaBook, LendingLimitKeepsTheRestOfTheQuotaPrivate) {
  AdmissionConfig config;
  config.queues = {queue("a", "research", 64), queue("b", "research", 32)};
  config.queues[0].lending[kQuotaGpu] = 8 * kGpu;
  QuotaBook book(config);
  const int a = book.find_queue("a"), b = book.find_queue("b");
  const int gpu = book.find_resource(kQuotaGpu);
  EXPECT_EQ(book.cohort_capacity(book.cohort_of(a), gpu), 40 * kGpu);
  book.add(a, gpus(book, a, 60));
  EXPECT_EQ(book.cohort_used(book.cohort_of(a), gpu), 4 * kGpu);
  EXPECT_TRUE(book.fits(b, gpus(book, b, 36)).fits);
  EXPECT_TRUE(book.fits(b, gpus(book, b, 36)).borrows);
  EXPECT_FALSE(book.fits(b, gpus(book, b, 37)).fits);
  EXPECT_FALSE(book.fits(b, gpus(book, b, 32)).borrows);
  // a's own 56 are private: b using 36 leaves a 64 − 60 = 4 more, all within its nominal.
  book.add(b, gpus(book, b, 36));
  EXPECT_FALSE(book.fits(a, gpus(book, a, 1)).fits) << "the 4 a lent are in use by b";
  book.remove(b, gpus(book, b, 4));
  EXPECT_TRUE(book.fits(a, gpus(book, a, 4)).fits);
  EXPECT_FALSE(book.fits(a, gpus(book, a, 5)).fits) << "64 is a's nominal and b borrows nothing";
}

// b: nominal 32 with borrowingLimit 2 in a cohort with an idle a (nominal 64): b may use 34.
TEST(QuotaBook, BorrowingLimitCapsWhatAQueueTakesAboveItsNominal) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 64), queue("b", "c", 32)};
  config.queues[1].borrowing[kQuotaGpu] = 2 * kGpu;
  QuotaBook book(config);
  const int b = book.find_queue("b");
  EXPECT_TRUE(book.fits(b, gpus(book, b, 34)).fits);
  EXPECT_FALSE(book.fits(b, gpus(book, b, 35)).fits);
}

// A queue without a cohort is a cohort of its own: nothing above its nominal quota.
TEST(QuotaBook, AQueueWithoutCohortNeverBorrows) {
  AdmissionConfig config;
  config.queues = {queue("solo", "", 8), queue("other", "", 64)};
  QuotaBook book(config);
  const int solo = book.find_queue("solo");
  EXPECT_NE(book.cohort_of(solo), book.cohort_of(book.find_queue("other")));
  EXPECT_TRUE(book.fits(solo, gpus(book, solo, 8)).fits);
  EXPECT_FALSE(book.fits(solo, gpus(book, solo, 9)).fits);
}

// Resources a quota does not name are not limited, and not counted.
TEST(QuotaBook, AResourceTheQuotaDoesNotNameIsUnlimited) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 8)};
  QuotaBook book(config);
  const ResourceVector u = book.usage(0, 8 * kGpu, "A100-80G", 1'000'000'000, int64_t{1} << 50);
  EXPECT_EQ(book.find_resource(kQuotaCpu), -1);
  EXPECT_TRUE(book.fits(0, u).fits);
}

// Quota per GPU model (Kueue's flavors): usage lands on the model the pods run on; a queue that
// names models and not "gpu" does not count other models at all.
TEST(QuotaBook, PerModelQuotaCountsTheModelThePodsRunOn) {
  AdmissionConfig config;
  QueueSpec q;
  q.name = "a";
  q.nominal[quota_gpu_model("A100-80G")] = 48 * kGpu;
  q.nominal[quota_gpu_model("H100-80G")] = 16 * kGpu;
  config.queues = {q};
  QuotaBook book(config);
  EXPECT_TRUE(book.per_model_gpus(0));
  const ResourceVector h100 = book.usage(0, 16 * kGpu, "H100-80G", 0, 0);
  const ResourceVector a100 = book.usage(0, 48 * kGpu, "A100-80G", 0, 0);
  EXPECT_EQ(h100[static_cast<size_t>(book.gpu_model_resource("H100-80G"))], 16 * kGpu);
  EXPECT_EQ(h100[static_cast<size_t>(book.gpu_model_resource("A100-80G"))], 0);
  book.add(0, h100);
  EXPECT_FALSE(book.fits(0, book.usage(0, kGpu, "H100-80G", 0, 0)).fits);
  EXPECT_TRUE(book.fits(0, a100).fits);
}

// Dominant share: a (nominal 10) and b (nominal 10), capacity 20. a using 15 borrows 5:
// 5 · 1000 / 20 = 250; with weight 2, 125; with weight 0, the maximum. Within nominal: 0.
TEST(QuotaBook, DominantShareIsBorrowedOverCohortCapacityPerWeight) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 10), queue("b", "c", 10), queue("z", "d", 10)};
  config.queues[1].fair_weight = 2;
  config.queues[2].fair_weight = 0;
  QuotaBook book(config);
  book.add(0, gpus(book, 0, 15));
  EXPECT_EQ(book.dominant_share(0), 250);
  EXPECT_EQ(book.dominant_share(1, gpus(book, 1, 15)), 125);
  EXPECT_EQ(book.dominant_share(1), 0);
  EXPECT_EQ(book.dominant_share(2, gpus(book, 2, 5)), 0) << "within nominal";
  EXPECT_EQ(book.dominant_share(2, gpus(book, 2, 11)), QuotaBook::kMaxShare);
  EXPECT_TRUE(book.borrowing(0));
  EXPECT_TRUE(book.borrowing_in(0, gpus(book, 0, 1)));
  EXPECT_FALSE(book.borrowing(1));
}

}  // namespace quota_book_test
}  // namespace gantry
