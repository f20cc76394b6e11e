#include "tools/gantry/shipped_data.hpp"

#include <fmt/format.h>

#include <system_error>

#include "engine/core/errors.hpp"

namespace gantry::cli {

namespace fs = std::filesystem;

namespace {

ShippedData laid_out_as_installed(const fs::path& prefix) {
  const fs::path root = prefix / "share" / "gantry";
  return {.root = root, .scenarios = root / "scenarios", .web_ui = root / "web"};
}

ShippedData laid_out_as_source(const fs::path& source_dir) {
  return {.root = source_dir,
          .scenarios = source_dir / "scenarios",
          .web_ui = source_dir / "web" / "ui" / "dist"};
}

bool is_folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

}  // namespace

ShippedData find_shipped_data(const fs::path& executable, const fs::path& source_dir) {
  // <prefix>/bin/gantry: the prefix is two levels up.
  const ShippedData installed = laid_out_as_installed(executable.parent_path().parent_path());
  if (is_folder(installed.scenarios)) return installed;
  if (!source_dir.empty()) {
    const ShippedData source = laid_out_as_source(source_dir);
    if (is_folder(source.scenarios)) return source;
  }
  std::string looked = installed.scenarios.string();
  if (!source_dir.empty()) looked += " nor in " + laid_out_as_source(source_dir).scenarios.string();
  throw GantryError(fmt::format(
      "the shipped scenarios are not in {} (the program is {}): install Gantry with cmake "
      "--install or its .deb, or name the files (--cluster, --scenarios, --ui)",
      looked, executable.string()));
}

const ShippedData& shipped_data() {
  static const ShippedData found = [] {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) exe = fs::path("/nonexistent/bin/gantry");
#ifdef GANTRY_SOURCE_DIR
    return find_shipped_data(exe, GANTRY_SOURCE_DIR);
#else
    return find_shipped_data(exe, {});
#endif
  }();
  return found;
}

}  // namespace gantry::cli
