# Sourced by tools/test.sh: `stage NAME COMMAND...` runs a command as a named stage, prints its
# wall time when it ends and remembers it; `stage_summary` prints every stage's time as a table.
# A failing stage stops the script (set -e) after printing its time and the table so far.
_stage_names=()
_stage_seconds=()
_stage_start_all=$(date +%s)

stage_summary() {
  local total=$(($(date +%s) - _stage_start_all))
  printf '\n%-36s %9s\n' "stage" "time"
  local i
  for i in "${!_stage_names[@]}"; do
    printf '%-36s %5d:%02d\n' "${_stage_names[$i]}" $((_stage_seconds[i] / 60)) $((_stage_seconds[i] % 60))
  done
  printf '%-36s %5d:%02d\n' "total" $((total / 60)) $((total % 60))
}

stage() {
  local name=$1
  shift
  local start status=0
  start=$(date +%s)
  printf '\n=== %s\n' "$name"
  "$@" || status=$?
  local took=$(($(date +%s) - start))
  _stage_names+=("$name")
  _stage_seconds+=("$took")
  printf '=== %s: %d:%02d%s\n' "$name" $((took / 60)) $((took % 60)) \
    "$([ "$status" -eq 0 ] || echo " (FAILED, exit $status)")"
  if [ "$status" -ne 0 ]; then
    stage_summary
    exit "$status"
  fi
}
