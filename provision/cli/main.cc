// rdma-provision: makes a node's RDMA hardware ready in early boot. The commands and their
// options are tables (commands.cc, options.cc); see the man page, configs/rdma-provision.8.
#include <string>
#include <vector>

#include "provision/cli/commands.h"

int main(int argc, char** argv) {
  return rp::run_cli(std::vector<std::string>(argv + 1, argv + argc));
}
