#pragma once
// The ranges every Gantry file is held to, in one place (README, "Limits and ranges").
//
// Each limit is far above anything real and low enough that what follows from a value (a sum
// over nodes, an instant computed from an offset, the memory a list takes) stays inside int64
// and inside the machine. A value past one is an InputError naming the field, the value and
// the range; nothing is clamped.

#include <cstdint>
#include <limits>

#include "engine/core/time.hpp"

namespace gantry {

// The largest input file read (a scenario, a pipeline file, an events file): checked before
// the file is read, so a mistaken 50 MB file fails at once instead of parsing for a minute.
// The largest shipped file is a few KiB; generated scenarios use generators, not lists.
inline constexpr int64_t kMaxInputFileBytes = 16ll << 20;  // 16 MiB

// How deeply YAML collections may nest. Gantry files nest at most about eight levels; yaml-cpp
// itself gives up at 2000 with an unhelpful "bad file"-style message.
inline constexpr int kMaxYamlDepth = 100;

// Every duration field: 0 to 100 years. Offsets from a scenario's start must also land on or
// before kLatestTime (engine/core/time.hpp).
inline constexpr Duration kMaxDuration = days(36'500);

// Nodes of one cluster (spec.cluster's racks together; what `gantry snapshot` writes): a slip
// of the keyboard ("nodes: 1000000000") must not exhaust memory, while the largest GPU
// clusters reported publicly are around 100k GPUs (12.5k 8-GPU nodes).
inline constexpr int64_t kMaxClusterNodes = 100'000;

// Sizes of data (gradients, input per step, GPU memory): at most 1 PiB.
inline constexpr int64_t kMaxDataBytes = 1ll << 50;

// Fields stored as int (priorities, thresholds, retry limits) take the int32 range.
inline constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

}  // namespace gantry
