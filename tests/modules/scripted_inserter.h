// ScriptedInserter: the kernel's side of module loading for the loader tests, as kmod's
// testsuite fakes init_module(2) under the real libkmod. Each insertion takes the time and
// ends with the errno the test scripts; what it inserts shows up under the fixture root as
// the kernel shows it (/sys/module/<m>/initstate, refcnt, parameters), so the loader's own
// checks see it. Like the kernel, a second insertion of a module waits while the first is
// in progress, then meets EEXIST. Thread-safe: the parallel loader calls it from its workers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "provision/kernel/modules.h"

namespace rp::testing {

// What one insertion does.
struct InsertScript {
  std::chrono::milliseconds delay{0};  // how long init_module(2) takes
  int errnum = 0;                      // 0: inserted; else init_module(2) fails with it
};

class ScriptedInserter : public ModuleInserter {
 public:
  using Script = InsertScript;

  // `root`: the fixture root whose /sys/module the "kernel" keeps up to date.
  explicit ScriptedInserter(std::string root, Script every_module = {});

  // The script of one module (others get `every_module`).
  void script(const std::string& module, Script s);

  int insert(const ModuleStep& step) override;
  int remove(const std::string& module) override;

  // Every call in order: "insert ib_core", "insert ib_ipoib send_queue_size=256",
  // "remove mlx4_en"; a failed one ends with " -> <errno name>".
  std::vector<std::string> calls() const;
  // The modules inserted successfully, in order.
  std::vector<std::string> inserted() const;
  // The most insertions that were in progress at one time.
  int max_in_flight() const;

 private:
  const std::string root_;
  const Script every_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Script> scripts_;
  std::set<std::string> coming_;  // being inserted right now
  std::vector<std::string> calls_;
  std::vector<std::string> inserted_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

}  // namespace rp::testing
