#include "tests/support/fixture.h"

#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace rp::testing {

std::string temp_dir(const std::string& hint) {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir =
      std::string(base ? base : "/tmp") + "/" + hint + "." + std::to_string(counter++);
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "cannot create %s\n", dir.c_str());
    std::abort();
  }
  return dir;
}

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) std::abort();
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

std::string unpack_fixture(const std::string& name) {
  std::string dir = temp_dir(name);
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  std::string tar = std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "rdma_provision") +
                    "/tests/fixtures/" + name + ".tar";
  int st = 0;
  std::string out = run("tar -xf '" + tar + "' -C '" + dir + "' 2>&1", &st);
  if (st != 0) {
    std::fprintf(stderr, "cannot unpack fixture %s: %s\n", tar.c_str(), out.c_str());
    std::abort();
  }
  return dir;
}

std::string tool_binary() {
  return std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") +
         "/provision/rdma-provision";
}

std::string tree_digest(const std::string& root) {
  return run("cd '" + root +
             "' && find . -path ./run/rdma-provision -prune -o -path ./run -printf '' -o "
             "-printf '%p %m %s\\n' | sort | md5sum");
}

Ran tool(const std::string& root, const std::string& args) {
  Ran r;
  r.out = run(tool_binary() + " " + args + " --root " + root + " 2>&1", &r.status);
  return r;
}

}  // namespace rp::testing
