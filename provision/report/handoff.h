// Hand-off to the real root: /run survives switch-root, so what was done is recorded in
// /run/rdma-provision/state.json (and, for the dracut hooks, state.env) and the persistent names
// are left as udev rules in /run/udev/rules.d, which keep them through a udev re-trigger after
// switch-root.
#pragma once

#include <string>

#include "provision/apply/apply.h"
#include "provision/config/config.h"
#include "provision/plan/plan.h"
#include "provision/report/record.h"

namespace rp {

// Rules that name netdevs on "add": IPoIB by the port GUID (the last 8 bytes of the
// 20-byte address, never the whole address), Ethernet by MAC. Physical devices only
// (DRIVERS), and never an IPoIB P_Key child (it shares its parent's GUID).
// `ask_for_table`: the early rules, written before any netdev exists: a per-node table in
// the configuration cannot be resolved yet, so one rule asks `rdma-provision udev-name`
// about each new interface instead.
std::string udev_rules(const Config& cfg, bool ask_for_table = false);

// The name the configuration gives the interface with hardware address `address` (an
// IPoIB 20-byte address: its port GUID; an Ethernet MAC): an explicit name, else its row
// of the per-node table; "" when none.
std::string configured_name(const Config& cfg, const HwAddress& address);

// `run`: the record of the run (phase, boot id, times, exit code, warnings and errors of
// the inputs and the plan); null in tests of the action list alone. With it, every exit
// code has a state, invalid input (exit 2, `report` null) included.
std::string state_json(const Config& cfg, const Plan& plan, const ApplyReport* report,
                       const RunRecord* run = nullptr);

// The facts the dracut hooks act on, as `KEY='value'` lines a POSIX shell sources
// (`. /run/rdma-provision/state.env`), so no hook parses JSON:
//   RP_VERSION, RP_ENABLED (1/0), RP_REQUIRED (1/0: a failure must stop the boot),
//   RP_TIMEOUT (the run's deadline in seconds: the hooks' watchdog kills a run stuck past it),
//   RP_VERIFY (rd.rdma.verify's mode: 0, ports, peer),
//   RP_EXIT_CODE and RP_SUMMARY (empty when nothing was applied, e.g. rd.rdma=0),
//   RP_DONE, RP_ALREADY, RP_CHECKED, RP_SKIPPED, RP_FAILED, RP_TIMED_OUT (action counts),
//   RP_ERRORS (the error of each failed or timed-out action, one per line),
//   RP_NAMES (the configured persistent interface names, space-separated),
//   RP_ACTIONS (each failed, timed-out or skipped action as apply printed it: outcome,
//   kind, object, current -> wanted, the error and its fix, [the input that asked]),
//   RP_SLOWEST (the three slowest actions, "1.52 s  wait-port rxe0/1", one per line),
//   RP_NVMF_RDMA (dracut's NVMe over Fabrics targets over RDMA, "traddr,host_traddr,trsvcid"
//   one per line) and RP_NEED_NETWORK (why they need the network; the module writes
//   rd.neednet=1 for dracut when it is not empty), RP_ONLINE_APPLY (the interfaces dracut
//   makes after apply whose soft links wait for their online point, space-separated: the
//   module's online hook runs apply again there);
// with `run`: RP_PHASE (initramfs, real-root), RP_BOOT_ID, RP_STARTED and RP_FINISHED
// (ISO 8601, UTC), RP_WARNINGS (one per line), RP_NOT_APPLIED (invalid input: what the node
// goes without), and RP_EXIT_CODE/RP_ERRORS also for invalid input.
std::string state_env(const Config& cfg, const Plan& plan, const ApplyReport* report,
                      const RunRecord* run = nullptr);
// The same before any plan (`udev-rules --state-env`, the early step in the initramfs):
// what the inputs say, valid or not, so the failure policy has the binary's reading of
// `required` even for invalid input. RP_EXIT_CODE is 2 and RP_ERRORS lists the input
// errors when invalid, both empty otherwise.
std::string inputs_state_env(const Config& cfg, const Diagnostics& diag);

inline constexpr const char* kStatePath = "/run/rdma-provision/state.json";
inline constexpr const char* kStateEnvPath = "/run/rdma-provision/state.env";
// What `verify --boot` found (the peer check at the network-online point), in the same two
// forms: state.json's and state.env's shapes for the verify plan.
inline constexpr const char* kVerifyPath = "/run/rdma-provision/verify.json";
inline constexpr const char* kVerifyEnvPath = "/run/rdma-provision/verify.env";
// nvmf --boot: the NVMe over Fabrics connects at the network-online point.
inline constexpr const char* kNvmfPath = "/run/rdma-provision/nvmf.json";
inline constexpr const char* kNvmfEnvPath = "/run/rdma-provision/nvmf.env";
// Made by `apply --udev-settle` just before its last look at the machine: from then on a
// device udev adds that it does not list (inventory/coldplug.h udev_ids: the devices that
// run has seen) gets another run, queued by the dracut module's udev rule
// (61-rdma-provision.rules, rdma-provision-queue).
inline constexpr const char* kColdplugSeenPath = "/run/rdma-provision/settled";
inline constexpr const char* kRunRulesPath = "/run/udev/rules.d/60-rdma-provision.rules";
// Options every load of a module picks up: modprobe, udev's kmod builtin and libkmod read
// /run/modprobe.d (libkmod.c default_config_paths). Written before udev coldplug.
inline constexpr const char* kRunModprobePath = "/run/modprobe.d/rdma-provision.conf";

// rdma-core's rdma_rename (60-rdma-persistent-naming.rules) renames every RDMA device on
// "add" unless the kernel marks its name as the user's (RDMA_NAME_ASSIGN_TYPE_USER, given
// to rxe and siw devices since Linux 6.11, and honoured by rdma_rename since rdma-core
// 53). Its default policy, NAME_FALLBACK, is by on-board index or PCI location
// (rdma_rename.c str2policy): a Soft-iWARP device, whose parent is its NIC's PCI function,
// would be renamed (siw0 -> iwp24s0f0) under the actions that use its name; Soft-RoCE
// has no PCI parent and keeps its name unless a rule asks for NAME_GUID. This is udev's
// own rule with those devices left out: its rules calling rdma_rename, guarded by
// KERNEL!="<our soft devices>", written to /run, which masks the same file name in
// /usr/lib and /lib (udev(7)); "" when there is no such rule or no soft link. A rule in
// /etc wins over /run: then `*note` says the guard cannot be put in place.
inline constexpr const char* kRunRdmaRenamePath =
    "/run/udev/rules.d/60-rdma-persistent-naming.rules";
std::string rdma_rename_guard(const Config& cfg, std::string* note);

// The early modprobe.d file: mlx4_en's PFC masks from our inputs. The kernel loads mlx4_en
// itself (mlx4/main.c mlx4_request_modules: request_module_nowait at probe and after each
// port-type change), before apply runs, and reads its masks only then. "" when nothing.
std::string early_modprobe_conf(const Config& cfg);

}  // namespace rp
