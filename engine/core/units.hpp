#pragma once
// Byte units shared by the cluster model and the trace importers, so that no file keeps a copy.

#include <cstdint>

namespace gantry {

inline constexpr int64_t kGiB = 1024ll * 1024 * 1024;

}  // namespace gantry
