// Kubernetes quantities as integers. Expected values follow the Quantity rules of
// k8s.io/apimachinery/pkg/api/resource (suffixes, exponents, rounding up in Value() and
// MilliValue()), worked out by hand.

#include "adapters/kube/model/quantity.hpp"

#include <gtest/gtest.h>

namespace gantry::kube {
namespace {

TEST(KubeQuantity, CpuInMilliCores) {
  EXPECT_EQ(parse_cpu_milli("2"), 2000);
  EXPECT_EQ(parse_cpu_milli("250m"), 250);
  EXPECT_EQ(parse_cpu_milli("0.5"), 500);
  EXPECT_EQ(parse_cpu_milli(".5"), 500);       // Kubernetes accepts a bare fraction
  EXPECT_EQ(parse_cpu_milli("1.0005"), 1001);  // 1000.5 milli rounds up
  EXPECT_EQ(parse_cpu_milli("100n"), 1);       // 0.0001 milli rounds up, never to zero
  EXPECT_EQ(parse_cpu_milli("0"), 0);
  EXPECT_EQ(parse_cpu_milli("1e3"), 1'000'000);  // 1000 cores
  EXPECT_EQ(parse_cpu_milli("+4"), 4000);
}

TEST(KubeQuantity, MemoryInBytes) {
  EXPECT_EQ(parse_bytes("256Gi"), int64_t{256} << 30);
  EXPECT_EQ(parse_bytes("1Ki"), 1024);
  EXPECT_EQ(parse_bytes("1.5Gi"), int64_t{3} << 29);
  EXPECT_EQ(parse_bytes("0.3Ki"), 308);  // 307.2 rounds up
  EXPECT_EQ(parse_bytes("100M"), 100'000'000);
  EXPECT_EQ(parse_bytes("1k"), 1000);
  EXPECT_EQ(parse_bytes("12E-1"), 2);           // 1.2 rounds up
  EXPECT_EQ(parse_bytes("8Ei"), std::nullopt);  // 2^63 does not fit in int64
  EXPECT_EQ(parse_bytes("7Ei"), int64_t{7} << 60);
}

TEST(KubeQuantity, RefusesWhatIsNotAQuantity) {
  for (const char* bad : {"", "Gi", "1.2.3", "1x", "1 Gi", "1KI", "-1", "1e", "1e+", "0x10", "1Gib",
                          "--1", "1mi", "99999999999999999999"})
    EXPECT_EQ(parse_bytes(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_bytes("-0"), 0);  // negative zero is zero
}

}  // namespace
}  // namespace gantry::kube
