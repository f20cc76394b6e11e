#pragma once
// Traffic split across a service's predictors, in whole percent summing to exactly 100.
//
// KubeDL divides 100 by the number of versions with integer division (three versions get
// 33/33/33 = 99 %, a percent of traffic routed nowhere). Gantry normalises the written weights
// to 100 and rounds by largest remainder (Hamilton's method): every share gets the floor of its
// exact quota, and the percents left over go one each to the largest fractional parts, ties to
// the earlier predictor. 1:1:1 gives 34/33/33.
//
// A canary (KServe's canaryTrafficPercent) routes that percent to the latest revision (the last
// predictor) and the rest to the previous one (the one before it); other predictors get 0.

#include <optional>
#include <vector>

namespace gantry {

// Weights as written (non-negative, at least one positive: the loader checks) → whole percents
// summing to 100, in the same order. Weights need not sum to 100 (9:1 is 90/10); a zero weight
// gets 0. 1:1:1 → 34/33/33, 2:1 → 67/33, 1:2 → 33/67.
std::vector<int> split_traffic(const std::vector<double>& weights);

// The split with a canary of `canary_percent` (0..100, rounded to whole percent, halves away
// from zero: 12.5 → 13; outside 0..100 clamped) over `count` predictors (count >= 2): the last
// gets the canary, the one before it the rest, the others 0. With count == 1 the one predictor
// takes 100.
std::vector<int> canary_split(int count, double canary_percent);

}  // namespace gantry
