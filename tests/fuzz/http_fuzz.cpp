// libFuzzer target for what `gantry serve` parses from the network: query strings and
// percent-escapes (http_message.hpp), request paths against the API's route patterns
// (router.hpp), request bodies split into documents (document_split.hpp) and turned into JSON
// (yaml_json.hpp). None may crash, hang or leak whatever the bytes; malformed input is a value
// (nullopt, no match) or a documented exception.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "web/server/document_split.hpp"
#include "web/server/http_message.hpp"
#include "web/server/router.hpp"
#include "web/server/yaml_json.hpp"

namespace {

const gantry::web::Router& routes() {
  static const gantry::web::Router r = [] {
    gantry::web::Router router;
    const auto ok = [](gantry::web::HttpRequest&) {
      return gantry::web::HttpResponse::text(200, "");
    };
    for (const char* p :
         {"/api/v1/pipelines", "/api/v1/pipelines/{name}", "/api/v1/pipelines/{name}/runs",
          "/api/v1/pipelines/{name}/runs/{logicalTime}",
          "/api/v1/pipelines/{name}/runs/{logicalTime}/rerun", "/api/v1/simulations/{id}"})
      router.get(p, ok);
    return router;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  (void)gantry::web::percent_decode(input);
  (void)gantry::web::parse_query(input);
  const gantry::web::Router::Match m = routes().match("GET", input);
  if (m.route != nullptr && m.params.empty() && input != "/api/v1/pipelines") __builtin_trap();
  for (const gantry::web::DocumentText& d : gantry::web::split_documents(input)) {
    try {
      (void)gantry::web::yaml_to_json(d.text);
    } catch (const YAML::Exception&) {
      // documented: text that does not parse
    }
  }
  return 0;
}
