// The data files a posted what-if scenario may name (issue 22): only files of the scenarios
// folder, whatever the path says (absolute, "../", a symbolic link that leads out); messages
// name the field and show paths relative to the folder.

#include "web/server/scenario_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/config/config_errors.hpp"
#include "tests/web/temp_dir.hpp"
#include "web/server/simulation_service.hpp"

namespace gantry::web {
namespace {

namespace fs = std::filesystem;

class ScenarioPaths : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    folder_ = dir_ / "scenarios";
    fs::create_directories(folder_ / "data");
    std::ofstream(folder_ / "data" / "nodes.csv") << "x\n";
    std::ofstream(dir_ / "outside.csv") << "secret\n";
    fs::create_directory_symlink(dir_, folder_ / "data" / "out");    // a link that leads out
    fs::create_directory_symlink(folder_ / "data", folder_ / "in");  // one that stays inside
  }

  // The errors check_data_paths() throws for a cluster trace naming `file`; empty: none.
  std::vector<InputError> errors_for(const std::string& file) {
    const std::string yaml =
        "kind: Scenario\nspec:\n  cluster:\n    trace: {format: openb-nodes, file: " + file + "}\n";
    try {
      check_data_paths(yaml, "posted.yaml", folder_);
    } catch (const InputErrors& e) {
      return e.errors();
    } catch (const InputError& e) {
      return {e};
    }
    return {};
  }

  fs::path folder_;
};

TEST_F(ScenarioPaths, FilesOfTheFolderAreAllowed) {
  EXPECT_TRUE(errors_for("data/nodes.csv").empty());
  EXPECT_TRUE(errors_for("./data/../data/nodes.csv").empty());
  EXPECT_TRUE(errors_for("in/nodes.csv").empty()) << "a link that stays inside";
  EXPECT_TRUE(errors_for("data/missing.csv").empty()) << "inside: the loader says it is missing";
}

TEST_F(ScenarioPaths, AnAbsolutePathIsRefusedNamingTheField) {
  const auto errors = errors_for("/etc/shadow");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].where().file, "posted.yaml");
  // Line 4 is "    trace: {format: openb-nodes, file: /etc/shadow}"; the value starts after
  // "    trace: {format: openb-nodes, file: " (39 characters): column 40.
  EXPECT_EQ(errors[0].where().line, 4);
  EXPECT_EQ(errors[0].where().column, 40);
  EXPECT_EQ(errors[0].field(), "spec.cluster.trace.file");
  EXPECT_EQ(errors[0].detail(),
            "'/etc/shadow' is an absolute path; a posted scenario may only name files of the "
            "scenarios folder, by a path relative to it (such as "
            "data/openb/openb_node_list_gpu_node.csv)");
}

TEST_F(ScenarioPaths, EscapesAreRefusedSymbolicLinksIncluded) {
  for (const std::string file : {"../outside.csv", "data/../../outside.csv", "data/out/outside.csv",
                                 "data/missing/../../../outside.csv", ".", "data/out"}) {
    const auto errors = errors_for(file);
    ASSERT_EQ(errors.size(), 1u) << file;
    EXPECT_EQ(errors[0].detail().rfind("'" + file + "' leads out of the scenarios folder", 0), 0u)
        << errors[0].detail();
  }
}

TEST_F(ScenarioPaths, EveryFileFieldIsChecked) {
  const std::string yaml = R"(kind: Experiment
spec:
  nodes: {format: openb-nodes, file: data/nodes.csv}
  pods: {format: openb-pods, file: /proc/self/environ}
  variants:
  - {name: a, pods: {format: openb-pods, file: ../outside.csv}}
)";
  try {
    check_data_paths(yaml, "posted.yaml", folder_);
    FAIL() << "two bad fields";
  } catch (const InputErrors& e) {
    ASSERT_EQ(e.errors().size(), 2u);
    EXPECT_EQ(e.errors()[0].field(), "spec.pods.file");
    EXPECT_EQ(e.errors()[1].field(), "spec.variants[0].pods.file");
    EXPECT_EQ(e.errors()[1].where().line, 6);
  }
}

TEST_F(ScenarioPaths, MessagesShowPathsRelativeToTheFolder) {
  const fs::path canonical = fs::canonical(folder_);
  EXPECT_EQ(relative_to_folder("no such file: " + (canonical / "data" / "x.csv").string(), folder_),
            "no such file: data/x.csv");
  EXPECT_EQ(relative_to_folder((canonical / "posted.yaml").string() + ":3:5: bad", folder_),
            "posted.yaml:3:5: bad");
  EXPECT_EQ(relative_to_folder("nothing to change", folder_), "nothing to change");
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The service checks again where the loaders open files, in case a path escaped the check of
// the text: here the scenario's file is in the source tree's scenarios folder (the loaders
// resolve its data there) while the folder it is confined to is another, where the same
// relative paths pass the check of the text.
TEST_F(ScenarioPaths, TheServiceRefusesWhatTheLoadersWouldOpenOutside) {
  const fs::path shipped = fs::path(GANTRY_SOURCE_DIR) / "scenarios";
  EventBus bus;
  SimulationService service(bus);
  const SimulationRequest cluster_trace{.scenario_yaml = read(shipped / "pai-2020-cluster.yaml"),
                                        .file = (shipped / "posted.yaml").string(),
                                        .folder = folder_,
                                        .confine_to_folder = true};
  try {
    service.submit(cluster_trace);
    FAIL() << "the cluster's trace is outside the folder";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "file");
    EXPECT_EQ(e.detail(),
              "'data/pai-2020/pai_machine_spec.csv' is not a file of the scenarios folder");
  }
  // A service's trace, named from the scenarios folder itself.
  std::string serving = read(shipped / "serving" / "hpa-vs-kpa-kpa.yaml");
  const std::string kTrace = "../data/azure-llm/code.csv";
  ASSERT_NE(serving.find(kTrace), std::string::npos);
  serving.replace(serving.find(kTrace), kTrace.size(), "data/azure-llm/code.csv");
  const SimulationRequest service_trace{.scenario_yaml = serving,
                                        .file = (shipped / "posted.yaml").string(),
                                        .folder = folder_,
                                        .confine_to_folder = true};
  try {
    service.submit(service_trace);
    FAIL() << "the service's trace is outside the folder";
  } catch (const InputError& e) {
    // At the field as written, and before anything was read from the file.
    EXPECT_EQ(e.where().file, (shipped / "posted.yaml").string());
    EXPECT_EQ(e.field(), "spec.workload.services[0].load.trace.file");
    EXPECT_EQ(e.detail(), "not a file of the scenarios folder");
  }
}

}  // namespace
}  // namespace gantry::web
