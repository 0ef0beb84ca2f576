#include "tests/modules/scripted_inserter.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/modules/fake_rdma_tree.h"

namespace rp::testing {
namespace {

bool is_live(const std::string& root, const std::string& module) {
  std::ifstream f(root + "/sys/module/" + module + "/initstate");
  std::string state;
  return f >> state && state == "live";
}

std::string refcnt(const std::string& root, const std::string& module) {
  std::ifstream f(root + "/sys/module/" + module + "/refcnt");
  std::string n;
  f >> n;
  return n;
}

// Parameters as the kernel shows them: numbers in decimal (a `uint` parameter given as
// 0x08 reads back 8), the rest as given.
void write_parameters(const std::string& root, const std::string& module,
                      const std::string& options) {
  const std::string dir = root + "/sys/module/" + module + "/parameters";
  std::filesystem::create_directories(dir);
  std::istringstream words(options);
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    std::string value = word.substr(eq + 1);
    char* end = nullptr;
    const unsigned long long n = std::strtoull(value.c_str(), &end, 0);
    if (!value.empty() && end && *end == '\0') value = std::to_string(n);
    std::ofstream(dir + "/" + word.substr(0, eq)) << value << "\n";
  }
}

std::string errno_name(int errnum) {
  switch (errnum) {
    case EBUSY:
      return "EBUSY";
    case EEXIST:
      return "EEXIST";
    case EINVAL:
      return "EINVAL";
    case ENOENT:
      return "ENOENT";
    case ENOEXEC:
      return "ENOEXEC";
    case ENODEV:
      return "ENODEV";
    default:
      return "errno " + std::to_string(errnum);
  }
}

}  // namespace

ScriptedInserter::ScriptedInserter(std::string root, Script every_module)
    : root_(std::move(root)), every_(every_module) {}

void ScriptedInserter::script(const std::string& module, Script s) {
  std::lock_guard<std::mutex> lk(mu_);
  scripts_[module] = s;
}

int ScriptedInserter::insert(const ModuleStep& step) {
  std::unique_lock<std::mutex> lk(mu_);
  const std::string call =
      "insert " + step.module + (step.options.empty() ? "" : " " + step.options);
  cv_.wait(lk, [&] { return !coming_.count(step.module); });
  if (is_live(root_, step.module)) {
    calls_.push_back(call + " -> EEXIST");
    return -EEXIST;
  }
  const auto it = scripts_.find(step.module);
  const Script s = it == scripts_.end() ? every_ : it->second;
  coming_.insert(step.module);
  max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
  lk.unlock();
  std::this_thread::sleep_for(s.delay);
  lk.lock();
  --in_flight_;
  coming_.erase(step.module);
  if (s.errnum != 0) {
    calls_.push_back(call + " -> " + errno_name(s.errnum));
  } else {
    mark_loaded(root_, step.module, 0);
    write_parameters(root_, step.module, step.options);
    calls_.push_back(call);
    inserted_.push_back(step.module);
  }
  cv_.notify_all();
  return -s.errnum;
}

int ScriptedInserter::remove(const std::string& module) {
  std::lock_guard<std::mutex> lk(mu_);
  int err = 0;
  if (!is_live(root_, module)) {
    err = ENOENT;
  } else if (refcnt(root_, module) != "0") {
    err = EBUSY;
  } else {
    std::filesystem::remove_all(root_ + "/sys/module/" + module);
  }
  calls_.push_back("remove " + module + (err ? " -> " + errno_name(err) : ""));
  return -err;
}

std::vector<std::string> ScriptedInserter::calls() const {
  std::lock_guard<std::mutex> lk(mu_);
  return calls_;
}

std::vector<std::string> ScriptedInserter::inserted() const {
  std::lock_guard<std::mutex> lk(mu_);
  return inserted_;
}

int ScriptedInserter::max_in_flight() const {
  std::lock_guard<std::mutex> lk(mu_);
  return max_in_flight_;
}

}  // namespace rp::testing
