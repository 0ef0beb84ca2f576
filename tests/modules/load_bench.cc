// load_bench: loads the given modules into the RUNNING kernel with the parallel loader
// and prints how long the batch took. For the QEMU guest (it needs root and real modules),
// not for a build host.
//   load_bench [--threads N] [--timeout SECONDS] [--dry-run] module...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "provision/apply/modules.h"
#include "provision/kernel/files.h"

int main(int argc, char** argv) {
  rp::ModuleLoading how;
  unsigned timeout_s = 60;
  std::vector<rp::Action> actions;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--threads" || arg == "--timeout") && i + 1 < argc) {
      const unsigned v = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
      (arg == "--threads" ? how.max_threads : timeout_s) = v;
    } else if (arg == "--dry-run") {
      how.loader.dry_run = true;
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "usage: %s [--threads N] [--timeout S] [--dry-run] module...\n",
                   argv[0]);
      return 2;
    } else {
      actions.emplace_back(rp::LoadModule{arg, "", std::nullopt}, "not loaded", "command line");
    }
  }
  if (actions.empty()) {
    std::fprintf(stderr, "%s: no module given\n", argv[0]);
    return 2;
  }

  rp::RealFileOps files{rp::Root("/")};
  rp::Log log(rp::stderr_sink(rp::LogLevel::kInfo));
  rp::ApplyContext ctx{files, true, rp::Deadline(std::chrono::seconds(timeout_s)), log};
  std::vector<const rp::Action*> batch;
  for (const auto& a : actions) batch.push_back(&a);

  const auto t0 = rp::Clock::now();
  const std::vector<rp::Outcome> outs = rp::load_modules_parallel(ctx, batch, how);
  const double wall = std::chrono::duration<double>(rp::Clock::now() - t0).count();

  int failed = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    const rp::Outcome& o = outs[i];
    const bool bad = o.kind == rp::OutcomeKind::kFailed || o.kind == rp::OutcomeKind::kTimedOut;
    failed += bad;
    std::printf("%-9s %s (%lld ms): %s\n", std::string(rp::to_string(o.kind)).c_str(),
                actions[i].object().c_str(), static_cast<long long>(o.took.count()),
                bad ? o.error.str().c_str() : o.detail.c_str());
  }
  std::printf("%zu modules, %u threads: %.3f s wall\n", actions.size(), how.max_threads, wall);
  return failed ? 1 : 0;
}
