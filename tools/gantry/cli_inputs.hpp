#pragma once
// Checks of command-line inputs shared by several subcommands, so that each rule is written
// once: what a seed may be, what a folder of pipeline files means, where output may go.
// Every failure is bad input (exit code 2) naming the flag or the file.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::cli {

// The largest seed: what a scenario file accepts (spec.seed is an integer 0..2^63−1), so a
// seed given on the command line and the same seed in a file are accepted alike.
inline constexpr uint64_t kMaxSeed = 9'223'372'036'854'775'807ull;

// A CLI11 validator for --seed: a decimal integer in [0, kMaxSeed]. CLI11 2.1 parses "-1"
// into a uint64_t as 2^64−1 without complaint; this refuses it with a message naming the
// range, before the conversion.
CLI::Validator seed_validator();

// The `kind` of the first YAML document of `text` ("Scenario", "InferenceService", ...); "" when
// it has none or does not parse (the file's own loader then reports why).
std::string first_document_kind(const std::string& text, const std::string& file);

// The pipeline files named by `args`: a file stands for itself; a folder for the *.yaml and
// *.yml regular files directly in it, in name order. Throws FileError naming a path that does
// not exist, and InputError naming a folder with no such file.
std::vector<std::string> expand_pipeline_args(const std::vector<std::string>& args);

// Loads pipeline files together (workflow/pipeline/pipeline_loader.hpp) and also refuses a
// file that declares nothing (empty, or only comments): a file given to Gantry is meant to
// say something. Throws FileError or PipelineErrors with every error.
PipelineDocuments load_pipelines(const std::vector<std::string>& files);

// Creates the folder `dir` (and its parents) for output named by `flag`. Throws GantryError
// naming the flag when `dir` exists and is not a folder, or cannot be created (permissions).
void make_output_dir(const std::string& flag, const std::string& dir);

// Throws GantryError naming --out unless a results database may be written at `db_path`
// (sim/results_writer.hpp, check_results_target()): checked before a simulation, so that a
// refusal costs nothing.
void check_output_database(const std::string& db_path);

// --parallel N of simulate, sweep and plan: how many runs go at once. More threads than cores
// only adds switching; the bound refuses typing mistakes (1000 for 100) before they start 1000
// threads.
inline constexpr unsigned kMaxParallel = 256;

// Checks --parallel's text: a decimal integer from 1 to kMaxParallel ("-1" is not read as a
// huge unsigned number, "2x" not as 2).
CLI::Validator parallel_validator();

// The threads for --parallel `parallel`: itself, or the machine's cores when 0 (not given).
unsigned threads_for(unsigned parallel);

}  // namespace gantry::cli
