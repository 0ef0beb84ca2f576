#include "provision/plan/rename_solver.h"

#include <algorithm>

namespace rp {

std::string temporary_name(int ifindex) { return "rename" + std::to_string(ifindex); }

std::vector<RenameStep> solve_renames(std::vector<RenameMove> moves,
                                      std::map<std::string, int> holders) {
  struct Pending {
    RenameMove m;
    size_t index;
  };
  std::vector<Pending> pending;
  for (size_t i = 0; i < moves.size(); ++i) pending.push_back({std::move(moves[i]), i});
  std::vector<RenameStep> steps;
  auto emit = [&](int ifindex, const std::string& from, const std::string& to, RenameStep::Why why,
                  size_t move) {
    steps.push_back({ifindex, from, to, why, move});
    holders.erase(from);
    holders[to] = ifindex;
  };
  while (!pending.empty()) {
    auto free = std::find_if(pending.begin(), pending.end(),
                             [&](const Pending& p) { return !holders.count(p.m.to); });
    if (free != pending.end()) {
      emit(free->m.ifindex, free->m.from, free->m.to, RenameStep::Why::kWanted, free->index);
      pending.erase(free);
      continue;
    }
    // Every target is taken: free the first one.
    Pending& first = pending.front();
    const int holder = holders[first.m.to];
    const std::string temp = temporary_name(holder);
    auto in_cycle = std::find_if(pending.begin(), pending.end(),
                                 [&](const Pending& p) { return p.m.ifindex == holder; });
    if (in_cycle != pending.end()) {
      emit(holder, in_cycle->m.from, temp, RenameStep::Why::kCycle, in_cycle->index);
      in_cycle->m.from = temp;
    } else {
      emit(holder, first.m.to, temp, RenameStep::Why::kUnrelated, first.index);
    }
  }
  return steps;
}

}  // namespace rp
