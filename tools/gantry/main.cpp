// gantry: the command-line program (tools/gantry/cli.hpp), with no test seams.

#include "tools/gantry/cli.hpp"

int main(int argc, char** argv) { return gantry::cli::run_cli(argc, argv); }
