// `gantry token create|list|revoke` against the database of a running `gantry serve`: roles,
// names unique with a clear error, a list that never shows a token, and a token revoked by the
// CLI refused by the running server at its next request (the server keeps no cache).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/serve_test.hpp"
#include "web/client/http_client.hpp"

namespace gantry::testing {
namespace token_command_test {

const char* kPipeline = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: nightly}
spec:
  tasks:
  - {name: t, image: x}
)";

class TokenCommand : public ServeTest {
 protected:
  std::string create(const std::string& flags) {
    const Outcome made = run("token create --db " + db() + " " + flags);
    EXPECT_EQ(made.exit_code(), 0) << made.err;
    return made.out.substr(0, made.out.find('\n'));
  }
};

TEST_F(TokenCommand, RolesNamesListAndRevoke) {
  auto server = serve();
  const std::string editor = create("--role editor --name ana");
  const std::string viewer = create("--read-only");  // named viewer-1
  const Outcome taken = run("token create --db " + db() + " --role viewer --name ana");
  EXPECT_EQ(taken.exit_code(), 2);
  EXPECT_NE(taken.err.find("there is already a token named 'ana' (editor)"), std::string::npos)
      << taken.err;
  EXPECT_EQ(run("token create --db " + db() + " --role owner --name x").exit_code(), 2)
      << "not a role";

  web::HttpClient as_editor(server->url(), {.token = editor});
  EXPECT_EQ(as_editor.post("/api/v1/pipelines", kPipeline, "application/yaml").status, 201);
  EXPECT_EQ(nlohmann::json::parse(as_editor.get("/api/v1/whoami").body),
            (nlohmann::json{{"role", "editor"}, {"name", "ana"}}));
  EXPECT_EQ(as_editor.get("/api/v1/tokens").status, 403);
  web::HttpClient as_viewer(server->url(), {.token = viewer});
  EXPECT_EQ(as_viewer.post("/api/v1/pipelines/nightly/trigger", "").status, 403);

  const Outcome listed = run("token list --db " + db());
  ASSERT_EQ(listed.exit_code(), 0) << listed.err;
  // The first start's admin, ana and viewer-1: a header and three rows.
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 4) << listed.out;
  EXPECT_NE(listed.out.find("admin (first start)"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("ana"), std::string::npos);
  EXPECT_NE(listed.out.find("viewer-1"), std::string::npos);
  EXPECT_EQ(listed.out.find("gty_"), std::string::npos) << "never a token";

  const Outcome revoked = run("token revoke ana --db " + db());
  ASSERT_EQ(revoked.exit_code(), 0) << revoked.err;
  EXPECT_EQ(revoked.out, "revoked token 'ana' (editor)\n");
  EXPECT_EQ(as_editor.get("/api/v1/pipelines").status, 401) << "at its next request";
  EXPECT_EQ(as_viewer.get("/api/v1/pipelines").status, 200);
  const Outcome again = run("token revoke ana --db " + db());
  EXPECT_EQ(again.exit_code(), 2);
  EXPECT_NE(again.err.find("no token named 'ana'"), std::string::npos) << again.err;
  const Outcome last = run("token revoke 'admin (first start)' --db " + db());
  EXPECT_EQ(last.exit_code(), 2);
  EXPECT_NE(last.err.find("the only admin token"), std::string::npos) << last.err;
}

}  // namespace token_command_test
}  // namespace gantry::testing
