// Request bodies of POST /pipelines split into documents (web/server/document_split.hpp): YAML
// at its document markers, JSON (one object or {"items":[...]}) written as block YAML that the
// pipeline loader reads as it reads a file.

#include "web/server/document_split.hpp"

#include <gtest/gtest.h>

#include "web/server/yaml_json.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace gantry::web {
namespace {

TEST(DocumentSplit, YamlDocumentsAtTheirMarkers) {
  const auto docs = split_documents(
      "kind: Pool\nmetadata: {name: etl}\n---\nkind: Pipeline\nmetadata: {name: a}\n");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].kind, "Pool");
  EXPECT_EQ(docs[0].name, "etl");
  EXPECT_EQ(docs[1].kind, "Pipeline");
  EXPECT_EQ(docs[1].text, "kind: Pipeline\nmetadata: {name: a}\n");
}

// Keys plain (the loader refuses quoted field names, which is what JSON has), strings quoted so
// that "1" and "true" stay strings, numbers and booleans plain.
TEST(DocumentSplit, JsonIsWrittenAsBlockYaml) {
  EXPECT_EQ(json_to_yaml(nlohmann::json::parse(
                R"({"a": {"cpu": "1", "n": 2, "on": true, "x": null}, "list": ["p", 1.5]})")),
            "a:\n  cpu: \"1\"\n  n: 2\n  on: true\n  x: ~\nlist:\n  - \"p\"\n  - 1.5\n");
}

// A JSON body, one object or {"items":[...]}, loads as the same pipeline its YAML would.
TEST(DocumentSplit, JsonBodiesLoadAsPipelines) {
  const std::string pipeline =
      R"({"apiVersion": "gantry.dev/v1", "kind": "Pipeline", "metadata": {"name": "from-json"},
          "spec": {"tasks": [{"name": "a", "image": "x:1", "resources": {"cpu": "2", "memory": "4Gi"}},
                             {"name": "b", "image": "x:1", "dependsOn": ["a"]}]}})";
  const auto one = split_documents(pipeline);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].kind, "Pipeline");
  EXPECT_EQ(one[0].name, "from-json");
  const PipelineDocuments loaded = load_pipeline_text(one[0].text, "body");
  ASSERT_EQ(loaded.pipelines.size(), 1u);
  ASSERT_EQ(loaded.pipelines[0].tasks.size(), 2u);
  EXPECT_EQ(loaded.pipelines[0].tasks[0].resources.cpu_milli, 2000);
  const auto items = split_documents(
      R"({"items": [{"apiVersion": "gantry.dev/v1", "kind": "Pool", "metadata": {"name": "etl"},
                     "spec": {"slots": 4}}, )" +
      pipeline + "]}");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, "Pool");
  EXPECT_EQ(items[1].name, "from-json");
  EXPECT_EQ(items[1].text, one[0].text);
}

}  // namespace
}  // namespace gantry::web
