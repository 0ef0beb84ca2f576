// Plan: the ordered actions that would bring the machine (Inventory) to the declared
// state (Config), each with its reason and current -> wanted value. Computing a plan
// touches nothing; on a machine already in the wanted state the plan is empty.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "provision/config/config.h"
#include "provision/inventory/inventory.h"
#include "provision/plan/action.h"

namespace rp {

struct Plan {
  bool enabled = true;  // rd.rdma=0: nothing at all
  std::vector<Action> actions;
  // Configured objects that are absent and not expected to appear ("not present"),
  // and other observations; reported, never silently dropped.
  std::vector<std::string> notes;
  // Modules of rdma-core's lists left to the real root (the initramfs with
  // [modules] defer on): reported in the state file for the real root.
  std::vector<std::string> deferred_modules;
  // Interfaces dracut makes after apply (its bond=) that this plan puts a Soft-RoCE or
  // Soft-iWARP link on: that link, and what names its device, wait for the interface's
  // online point, where the module's online hook runs apply again (state.env
  // RP_ONLINE_APPLY).
  std::vector<std::string> online_ifaces;
  // What the configuration names that the machine does not show (yet), one line each
  // ("no interface fabric0 is present", the node table's unmatched row): said as warnings
  // or as actions that never run. While any is listed, an apply that udev's coldplug may
  // still be feeding waits for it (cli/coldplug.cc); the lines are not said twice.
  std::vector<std::string> absent;
  Diagnostics diag;  // cross-checks against the machine (errors make the input invalid)
  unsigned timeout_s = 60;
};

// Runs the capability planners in the kernel's order (plan.cc build()). Checks that need
// the machine (a parent that is not IPoIB, RoCE v1 on a v2-only port, an MTU above the
// link's) are made by the planners and land in plan.diag.
Plan make_plan(const Config& cfg, const Inventory& inv);

// Cross-checks of the configuration alone (names, P_Key partitions, mlx4 combinations);
// appended to diag.
void validate(const Config& cfg, Diagnostics& diag);

// mlx4_en's PFC masks our own inputs ask for (the command line, the native config), if
// any: rx follows tx in our short forms. nullopt when none, or when they come from
// modprobe.d alone (modprobe applies those itself).
std::optional<PfcMasks> wanted_pfc(const Config& cfg);

// BOOTIF naming an InfiniBand port whose IPoIB interface the configuration names (#43,
// plan/bootif.cc): what the initramfs gives dracut instead, at its cmdline step
// (`rdma-provision bootif`). nullopt when BOOTIF names no such port.
struct BootifHandoff {
  uint64_t guid = 0;
  std::string name;                // the port's IPoIB interface, as configured
  std::string named_by;            // where that name comes from
  std::vector<std::string> words;  // rd.bootif=0 [ip=<name>:dhcp]; empty: nothing can be
  std::string why;                 // what and why, or why nothing, in one line
};
std::optional<BootifHandoff> bootif_handoff(const Config& cfg);
// `rdma-provision verify`: the verify actions alone. `ports`: a loopback check on each port
// the configuration involves (every present port when it involves none); `peer`: a
// connection to that listener. Each action's reason is `reason`.
struct VerifyRequest {
  bool ports = true;
  bool boot = false;  // verify --boot: only the ports the configuration involves
  std::optional<VerifyPeer> peer;
  std::string reason;
  std::string peer_reason;  // the peer's, when it differs ("... (the NFS server of root=)")
};
Plan make_verify_plan(const Config& cfg, const Inventory& inv, const VerifyRequest& r);
// `rdma-provision nvmf --boot`, at the network-online point: an nvmf-connect for each
// target dracut's 95nvmf would connect over RDMA (BootContext::nvmf_rdma) whose route
// goes through the interface now online, with the host's NQN and ID (both or neither).
struct NvmfRequest {
  std::vector<const BootContext::NvmfTarget*> targets;
  std::string hostnqn, hostid;
  std::string identity_source;  // where the NQN and ID came from, for the action's reason
};
Plan make_nvmf_plan(const Config& cfg, const NvmfRequest& r);
// `rdma-provision preload`: the module loads of `full` that need no device, started by the
// dracut module before udev's coldplug so the kernel's module initialisation is done by the
// time apply runs (what the floor of tests/bench/qemu_time_to_root.sh does): soft-device,
// connection-manager, IPoIB, verbs and NFS/RDMA modules. Never a hardware driver (NIC or
// HCA: they load for their devices, mlx4_core after its port types) nor an action that
// waits for another. With rdma_rxe, the crc32 the kernel asks the crypto API for when a
// Soft-RoCE link is made (rxe_icrc.c rxe_icrc_init; no softdep): the modules `inv` shows
// behind "crypto-crc32" in this kernel, crc32_pclmul only where the CPU has PCLMULQDQ; so
// that `rdma link add` does not wait for the kernel's request_module("crypto-crc32").
Plan early_module_plan(const Plan& full, const Inventory& inv);

// The peer rd.rdma.verify=peer checks: its address, else the NFS server of root=; with
// the reason naming where it came from. nullopt when the mode is not peer or no address
// is known (root=dhcp, a server given by name).
std::optional<VerifyPeer> configured_peer(const Config& cfg, std::string* reason);

std::string plan_text(const Plan& plan);
std::string plan_json(const Plan& plan);
// The plan's "notes" and "deferred_modules" arrays, written into the object `w` has open:
// the plan's JSON and the state file's (report/handoff.cc) share them.
class JsonWriter;
void notes_json(JsonWriter& w, const Plan& plan);

}  // namespace rp
