// Test support: unpack a generated fixture tree (tests/fixtures/<name>.tar) into a fresh
// directory under $TEST_TMPDIR, so every test starts from the pristine tree.
#pragma once

#include <string>

namespace rp::testing {

// Returns the directory to pass as the root. Aborts the test binary if unpacking fails.
std::string unpack_fixture(const std::string& name);

// A fresh empty directory under $TEST_TMPDIR.
std::string temp_dir(const std::string& hint);

// Runs a shell command and returns its stdout; `status` gets the exit status.
std::string run(const std::string& cmd, int* status = nullptr);

// The rdma-provision binary of a CLI test (its data dependency //provision:rdma-provision).
std::string tool_binary();

// The binary run as an administrator runs it on a fixture: `args` then --root `root`,
// stdout and stderr together, and the exit status.
struct Ran {
  int status = -1;
  std::string out;
};
Ran tool(const std::string& root, const std::string& args);

// Whether `out` contains `s`.
inline bool has(const std::string& out, const std::string& s) {
  return out.find(s) != std::string::npos;
}

// Every path of the tree with its mode and size: what a run that applies nothing leaves.
// The run's own record (/run/rdma-provision: state.json, state.env, each phase's copy),
// which apply writes for every exit code, is left out; so is the /run entry itself.
std::string tree_digest(const std::string& root);

}  // namespace rp::testing
