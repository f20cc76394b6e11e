#pragma once
// Where the files Gantry ships beside its program are: the scenarios (with their data) and the
// built web app. No default depends on the working directory, so `gantry serve` works from any
// folder:
//   - an installed program, <prefix>/bin/gantry, finds them in <prefix>/share/gantry/scenarios
//     and <prefix>/share/gantry/web (`cmake --install`, the .deb: tools/CMakeLists.txt);
//   - a program run from its build tree finds them in the source tree it was built from
//     (scenarios/, web/ui/dist/).
// The installed copy wins, so a package works wherever its build tree is, or is not.

#include <filesystem>
#include <string>
#include <vector>

namespace gantry::cli {

struct ShippedData {
  std::filesystem::path root;       // <prefix>/share/gantry, or the source tree
  std::filesystem::path scenarios;  // the shipped scenarios' folder
  std::filesystem::path web_ui;     // the built web app (index.html); may not be built yet
};

// The shipped files for the program at `executable`, built from `source_dir` (empty: not
// known). Returns the first of the two places whose scenarios folder exists. Throws GantryError
// naming both places when neither has it.
ShippedData find_shipped_data(const std::filesystem::path& executable,
                              const std::filesystem::path& source_dir);

// The same for the running program (/proc/self/exe, and the source tree this binary was built
// from). Looked up once.
const ShippedData& shipped_data();

}  // namespace gantry::cli
