// Plan: the ordered actions that would bring the machine (Inventory) to the declared
// state (Config), each with its reason and current -> wanted value. Computing a plan
// touches nothing; on a machine already in the wanted state the plan is empty.
#pragma once

#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"

namespace rp {

enum class ActionKind {
  kLoadModule,       // value = module, extra = options
  kReloadModule,     // value = module, extra = options (mlx4_en with new PFC masks)
  kSetPortType,      // device = PCI address, port, value = ib|eth|auto
  kSetPortMtu,       // device = PCI address, port, value = bytes
  kCreateSoftLink,   // device = netdev, value = new RDMA device name, extra = rxe|siw
  kRename,           // device = current ifname, value = new ifname
  kSetRoceMode,      // device = ibdev, port, value = "RoCE v2" | "IB/RoCE v1"
  kSetRoceTos,       // device = ibdev, port, value = 0..255
  kCreatePkeyChild,  // device = parent, value = child name, port = pkey, extra = mode
  kSetIpoibMode,     // device = ifname, value = datagram|connected
  kSetMtu,           // device = ifname, value = bytes
  kLinkUp,           // device = ifname
  kAddAddress,       // device = ifname, value = cidr
  kAddRoute,         // device = ifname, value = destination, extra = gateway
  kWaitPort,         // device = ibdev, port: until ACTIVE
  kWaitLink,         // device = ifname: until carrier
};
std::string_view to_string(ActionKind k);

struct Action {
  Action(ActionKind k, std::string obj, std::string cur, std::string want, std::string why)
      : kind(k),
        object(std::move(obj)),
        current(std::move(cur)),
        wanted(std::move(want)),
        reason(std::move(why)) {}

  ActionKind kind;
  std::string object;   // what an administrator calls it: "0000:81:00.0 port 2", "mlx5_0/1", "ib0"
  std::string current;  // "ib", "absent", "unknown"
  std::string wanted;   // "eth"
  std::string reason;   // the input that asked: "/etc/rdma/mlx4.conf:1", "cmdline: rd.rdma...."
  // The object does not exist yet but is expected to appear during apply (after a module
  // load, a soft link, a rename); apply waits for it within the deadline.
  std::string waiting_for;
  // Executor parameters (see ActionKind).
  std::string device;
  unsigned port = 0;
  std::string value;
  std::string extra;
  // Indices of earlier actions this one needs: when one of them fails, this is skipped.
  std::vector<size_t> after;
};

struct Plan {
  bool enabled = true;  // rd.rdma=0: nothing at all
  std::vector<Action> actions;
  // Configured objects that are absent and not expected to appear ("not present"),
  // and other observations; reported, never silently dropped.
  std::vector<std::string> notes;
  Diagnostics diag;  // cross-checks against the machine (errors make the input invalid)
  unsigned timeout_s = 60;
};

Plan make_plan(const Config& cfg, const Inventory& inv);

// Cross-checks of the configuration alone and against the machine; appended to diag.
void validate(const Config& cfg, const Inventory& inv, Diagnostics& diag);

std::string plan_text(const Plan& plan);
std::string plan_json(const Plan& plan);

}  // namespace rp
