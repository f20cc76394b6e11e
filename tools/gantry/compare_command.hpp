#pragma once
// `gantry compare A B [--variant NAME] [--format text|json]`: two result sets side by side.
//
// A and B name results databases written by `gantry simulate`:
//  - training runs: `DIR/results.db` (or just DIR): the summary figures of both, with the
//    difference;
//  - fragmentation experiments: `results.db:POLICY` (or DIR:POLICY), e.g.
//    `gantry compare out/results.db:FGD out/results.db:BestFit`: allocated, unallocated and
//    fragmented GPU share of both policies at the arrival levels of the report, with the
//    difference. --variant picks a pod list of a sweep (default: the first).

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_compare_command(CLI::App& app);

}  // namespace gantry::cli
