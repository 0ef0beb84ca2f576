// The order of interface renames: each interface gets its wanted name once the name is
// free; a swap or a longer cycle is broken with a temporary name; an interface that holds
// a wanted name and is not itself renamed is moved out of the way to a temporary name.
// Pure: names and interface ids in, steps out (plan/names.cc turns them into actions).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rp {

struct RenameMove {
  int ifindex;  // the interface (ids are ifindexes: the temporary names use them)
  std::string from, to;
};

struct RenameStep {
  enum class Why {
    kWanted,     // the move itself: `to` is the wanted name
    kCycle,      // a temporary name for an interface whose own target is taken (swap)
    kUnrelated,  // a temporary name for an interface not being renamed that holds a target
  };
  int ifindex;
  std::string from, to;
  Why why;
  size_t move;  // the move this step serves (for kUnrelated: the one whose target it frees)
};

// The temporary name of an interface: "rename<ifindex>", the form udev used for its own
// temporary names; unique because ifindexes are.
std::string temporary_name(int ifindex);

// `holders`: every interface name in use now -> its ifindex. Steps in the order to run.
std::vector<RenameStep> solve_renames(std::vector<RenameMove> moves,
                                      std::map<std::string, int> holders);

}  // namespace rp
