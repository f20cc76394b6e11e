#pragma once
// How many runs one replay may create (issue 8: a 1,000-year window of a 5-minute cron grew
// to gigabytes before anything was printed). `gantry pipeline run` and `backfill` check the
// window against the pipelines' schedules before running anything and refuse a window that
// holds more ticks than kMaxRunsPerReplay, naming the pipeline, its cron, the window and the
// limit, so that the user can shorten the window or split it.
//
// Counting is O(ticks) up to the limit (CronSchedule::ticks), so a refused window costs about
// as much as a million cron steps, not the replay.

#include <cstddef>
#include <optional>
#include <string>

#include "engine/core/time.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

// A year of a one-minute cron is 525,600 runs; bench/pipeline_year.sh replays 105,120.
inline constexpr size_t kMaxRunsPerReplay = 1'000'000;

// The runs `pipeline run --from from --until until` may create for `p`: every tick of its
// schedule from its start (catchup true) or from `from` (catchup false, plus the one caught
// up) to min(end, until). 0 without a schedule. Counts at most `limit` + 1.
size_t replay_ticks(const PipelineSpec& p, Time from, Time until, size_t limit);

// The runs `pipeline backfill --from from --to to` creates for `p`: its ticks in [from, to].
size_t backfill_ticks(const PipelineSpec& p, Time from, Time to, size_t limit);

// The runs a catch-up at `now` may create for `p` (catchup true): its ticks after
// `last_tick` (from its start when nullopt) up to min(end, now). 0 without a schedule or with
// catchup false (at most one run). Counts at most `limit` + 1. gantry serve refuses a
// pipeline whose catch-up would exceed kMaxRunsPerReplay, as the CLI refuses such a window.
size_t catch_up_ticks(const PipelineSpec& p, std::optional<Time> last_tick, Time now, size_t limit);

// Throws GantryError "<flag>: ..." when the ticks of all `pipelines` together (only the one
// named `only`, if not empty) exceed `limit` (kMaxRunsPerReplay unless --max-runs raised it:
// the limit guards against a typo in a window, not against a replay meant to be large).
// `backfill` selects backfill_ticks.
void check_window(const std::vector<PipelineSpec>& pipelines, Time from, Time to, bool backfill,
                  const std::string& only, const std::string& flag,
                  size_t limit = kMaxRunsPerReplay);

}  // namespace gantry
