// Every command's help ends with an example (issue #27), and the example is one the command
// takes: it names the command, each of its --flags is one of the command's options, and each
// shipped file it names exists.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "tools/gantry/cli.hpp"

namespace gantry::cli_help_test {

// The words of `text` up to a shell redirection or a parenthesis (the top-level help's note).
std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    if (w == ">" || w.starts_with("(")) break;
    out.push_back(w);
  }
  return out;
}

void check(CLI::App* cmd, const std::string& path, int& checked) {
  const std::string footer = cmd->get_footer();
  SCOPED_TRACE(path);
  ASSERT_TRUE(footer.starts_with("Example: " + path)) << "help ends with: '" << footer << "'";
  const std::vector<std::string> example = words(footer.substr(9));
  // A group's example runs one of its commands (gantry pipeline run ...): its flags are that
  // command's.
  CLI::App* target = cmd;
  std::string target_path = path;
  for (size_t i = 1; i < example.size(); ++i) {
    CLI::App* sub = nullptr;
    for (CLI::App* candidate : target->get_subcommands([](CLI::App*) { return true; }))
      if (candidate->get_name() == example[i]) sub = candidate;
    if (sub == nullptr) continue;
    target = sub;
    target_path += " " + example[i];
  }
  for (const std::string& w : example) {
    if (w.starts_with("--")) {
      const std::string flag = w.substr(0, w.find('='));
      EXPECT_NE(target->get_option_no_throw(flag), nullptr)
          << flag << " is not an option of " << target_path;
    }
    if (w.starts_with("scenarios/")) {
      EXPECT_TRUE(std::filesystem::exists(std::string(GANTRY_SOURCE_DIR) + "/" + w)) << w;
    }
  }
  ++checked;
  for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; }))
    check(sub, path + " " + sub->get_name(), checked);
}

TEST(CliHelp, EveryCommandEndsWithAnExampleItTakes) {
  CLI::App app;
  cli::add_commands(app, {});
  int checked = 0;
  check(&app, "gantry", checked);
  // gantry, 9 top-level commands, pipeline's 15, token's 3, sweep's cancel, kube's 2, and
  // kubelet-sim, snapshot, kube, sweep-worker, serve, validate, compare, plan, tune: counted
  // by the walk; at least the 30 there are today.
  EXPECT_GE(checked, 30);
}

}  // namespace gantry::cli_help_test
