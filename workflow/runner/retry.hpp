#pragma once
// Retry decisions (issue #4, "Retry"), as pure functions so they are tested alone.
//
// The wait before retry k (k = 1 for the first retry) is delay · factor^(k−1), capped at
// `cap`, counted from the end of the failed attempt. `limit` retries follow the first
// attempt. When the next attempt would start after first start + maxDuration the task gives
// up instead (first start = when the work of the first attempt since the task was last
// cleared started running, or when it was asked for if it never ran).

#include <optional>

#include "engine/core/time.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/run.hpp"

namespace gantry {

// delay · factor^(k−1), capped at cap (k >= 1). Exact in microseconds for integral factors
// below the cap; computed in double and rounded otherwise. Saturating: a product too large for
// a double (a factor > 1 after many retries) is the cap, never NaN or a wrap-around; a zero
// delay waits zero for every k, whatever the factor (0 · factor^(k−1) = 0).
Duration retry_wait(const RetrySpec& spec, int k);

// Whether `policy` retries an attempt that ended in `state`: OnFailure retries failed and
// timeout, OnError retries error, Always all three. Killed and succeeded attempts never retry.
bool retry_applies(RetryPolicy policy, AttemptState state);

// When the next attempt starts, or nullopt when the task gives up. `retries_done` counts the
// retries already made (attempts since the last clear minus one).
std::optional<Time> next_attempt_start(const RetrySpec& spec, AttemptState last_state,
                                       Time last_end, Time first_start, int retries_done);

}  // namespace gantry
