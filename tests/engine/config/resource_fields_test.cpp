#include "engine/config/resource_fields.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gantry {
namespace {

// The GPU request of `text` (a YAML scalar), or the message of its error.
Resources gpu(const std::string& text) {
  Resources r;
  read_gpu(parse_yaml_document("gpu: " + text + "\n", "t.yaml").as_map({"gpu"}).required("gpu"), r);
  return r;
}

std::string gpu_error(const std::string& text) {
  try {
    gpu(text);
  } catch (const InputError& e) {
    return e.detail();
  }
  return "no error";
}

TEST(ResourceFields, GpuIsWholeGpusOrAShareOfOne) {
  EXPECT_EQ(gpu("2"), (Resources{0, 0, 2, 0}));
  EXPECT_EQ(gpu("\"8\""), (Resources{0, 0, 8, 0}));  // quoted or not
  EXPECT_EQ(gpu("0.5"), (Resources{0, 0, 0, 500}));  // 0.5 GPU = 500 milli
  EXPECT_EQ(gpu("\"0.125\""), (Resources{0, 0, 0, 125}));
  EXPECT_EQ(gpu("0"), (Resources{0, 0, 0, 0}));
  EXPECT_EQ(gpu("64"), (Resources{0, 0, 64, 0}));
}

TEST(ResourceFields, GpuHasOneSpelling) {
  const std::string what =
      "expected a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5, got ";
  EXPECT_EQ(gpu_error("500m"), what + "'500m'");  // CPU's milli spelling is not a GPU's
  EXPECT_EQ(gpu_error("two"), what + "'two'");
  EXPECT_EQ(gpu_error("1.5"), what + "'1.5' (a share is of one GPU; ask for whole GPUs above 1)");
  EXPECT_EQ(gpu_error("65"), "at most 64 GPUs per pod, got 65");
}

TEST(ResourceFields, CpuAndMemoryAreHeldToTheirLimits) {
  const ConfigMap m = parse_yaml_document("a: 500m\nb: \"2\"\nc: 64Gi\nd: 65Ti\n", "t.yaml")
                          .as_map({"a", "b", "c", "d"});
  EXPECT_EQ(read_cpu(m.required("a")), 500);
  EXPECT_EQ(read_cpu(m.required("b")), 2000);
  EXPECT_EQ(read_memory(m.required("c")), 64ll << 30);
  EXPECT_THROW(read_memory(m.required("d")), InputError);  // past 64 TiB
}

}  // namespace
}  // namespace gantry
