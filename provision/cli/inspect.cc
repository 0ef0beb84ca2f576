// The commands that only read: status, check, config, plan and image-needs.
#include <cstdio>

#include "provision/base/json.h"
#include "provision/base/root.h"
#include "provision/cli/commands.h"
#include "provision/image/needs.h"
#include "provision/image/target_check.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/dcbnl.h"
#include "provision/kernel/rtnl.h"
#include "provision/plan/plan.h"
#include "provision/plan/rdma_names.h"
#include "provision/report/effective.h"
#include "provision/report/status.h"
#include "provision/resolve/concerns.h"
#include "provision/resolve/node_table.h"

namespace rp {

namespace {

// What the configuration asks of the devices now: the links it expects (rd.rdma.expect)
// against what the inventory shows, and the fixed device names (rd.rdma.devname), held or
// to be given; nothing when the inputs are invalid (`check` says why) or ask neither.
StatusNotes status_notes(const Root& root, const Options& o, const Inventory& inv) {
  StatusNotes out;
  Inputs in = load_inputs(root, o.inputs);
  if (!in.diag.ok()) return out;
  in.config = resolve_node_table(inv, in.config);
  if (in.config.expect.empty() && in.config.rdma_names.empty()) return out;
  const Plan plan = make_plan(in.config, inv);
  for (const auto& [name, sel] : in.config.rdma_names)
    if (inv.find_rdma(name)) out.names[name] = {name, true, sel.source.str()};
  Diagnostics said_by_check;  // a name that cannot be given: `check` and `plan` say why
  for (const auto& m : rdma_name_moves(in.config, inv, said_by_check).moves)
    out.names[m.from] = {m.to, false, m.source.str()};
  for (const auto& a : plan.actions) {
    if (a.kind() != ActionKind::kCheckLink) continue;
    const auto& c = a.get<CheckLink>();
    out.health[{c.device, c.port}] = {c.want.str(),
                                      link_mismatches(c.want, found_in(inv, c.device, c.port))};
  }
  return out;
}

}  // namespace

int cmd_status(const Options& o) {
  Root root(o.root);
  if (!root_usable(root, o, "status")) return kExitUsage;
  Inventory inv = discover(root, Detail::kFull);
  // The DCB of the interfaces under RoCE ports (trust, PFC, the RoCE ToS's priority).
  if (root.is_live()) discover_dcb(inv, kernel_dcb(), roce_interfaces(inv));
  StatusNotes notes = status_notes(root, o, inv);
  // The path of each NVMe over Fabrics controller over RDMA: the interface the route to its
  // target goes through now, and the RDMA port under that interface.
  if (root.is_live()) {
    for (const auto& c : inv.nvme) {
      if (c.transport != "rdma" || c.address.rfind("traddr=", 0) != 0) continue;
      const std::string traddr = c.address.substr(7, c.address.find(',') - 7);
      const auto addr = IpAddress::parse(traddr);
      const std::string via = addr ? rtnl_route_via(*addr) : "";
      if (via.empty()) continue;
      const NetDev* n = inv.find_netdev(via);
      notes.nvme_via[c.instance] =
          via + (n && !n->rdma_device.empty()
                     ? " (" + n->rdma_device + "/" + std::to_string(n->rdma_port) + ")"
                     : " (no RDMA port under it)");
    }
  }
  print(o.json ? status_json(inv, notes) : status_text(inv, notes));
  return kExitOk;
}

namespace {

// check --json and plan --json of an invalid input: the findings as JSON, each with its
// source apart from its message.
std::string findings_json(const std::vector<const Diagnostics*>& all,
                          const std::vector<std::string>& files, bool enabled,
                          const std::vector<std::string>* drivers) {
  JsonWriter w;
  w.begin_object();
  size_t errors = 0;
  for (const auto* d : all) errors += d->errors.size();
  w.field("valid", errors == 0).field("enabled", enabled);
  for (const bool err : {true, false}) {
    w.key(err ? "errors" : "warnings").begin_array();
    for (const auto* d : all) {
      for (const auto& e : err ? d->errors : d->warnings) {
        w.begin_object().field("source", e.where).field("message", e.what).end_object();
      }
    }
    w.end_array();
  }
  w.key("read").begin_array();
  for (const auto& f : files) w.value(f);
  w.end_array();
  if (drivers) {
    w.key("target_drivers").begin_array();
    for (const auto& d : *drivers) w.value(d);
    w.end_array();
  }
  w.end_object();
  return w.str() + "\n";
}

// check --drivers: the inputs against the target's drivers, not against this machine
// (image/target_check.h).
int check_for_target(const Inputs& in, const std::vector<std::string>& drivers, bool json) {
  Diagnostics target;
  check_target(in.config, drivers, target);
  // What such an image would carry, against the devices the configuration names.
  ImageNeedsOptions opt;
  opt.drivers = DriverChoice::kGiven;
  opt.given = drivers;
  check_image_carries(in.config, image_needs(in, Inventory{}, opt), opt.drivers, target);
  const size_t errors = in.diag.errors.size() + target.errors.size();
  const size_t warnings = in.diag.warnings.size() + target.warnings.size();
  if (json) {
    print(findings_json({&in.diag, &target}, in.files_read, in.config.enabled.value, &drivers));
    return errors ? kExitInvalid : kExitOk;
  }
  print_diagnostics(in.diag);
  print_diagnostics(target);
  std::string list;
  for (const auto& d : drivers) list += (list.empty() ? "" : " ") + d;
  std::printf("check: %zu error%s, %zu warning%s; target drivers: %s\n", errors,
              errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", list.c_str());
  return errors ? kExitInvalid : kExitOk;
}

}  // namespace

int cmd_check(const Options& o) {
  auto p = prepare(o, "check", !o.drivers);
  if (!p) return kExitUsage;
  const Inputs& in = p->in;
  if (o.drivers) return check_for_target(in, *o.drivers, o.json);
  Plan plan = make_plan(in.config, p->inv);  // its cross-checks against the machine
  // A wait that can never be met is an action apply fails at once: a warning here. (A
  // require action's warning is the planner's own, PlanBuilder::absent.)
  Diagnostics never;
  for (const auto& a : plan.actions) {
    if (a.never.empty() || a.kind() == ActionKind::kRequire) continue;
    never.warn(a.reason, std::string(to_string(a.kind())) + " " + a.object() + ": " + a.never +
                             "; apply fails it");
  }
  const size_t errors = in.diag.errors.size() + plan.diag.errors.size();
  const size_t warnings =
      in.diag.warnings.size() + plan.diag.warnings.size() + never.warnings.size();
  if (o.json) {
    print(findings_json({&in.diag, &plan.diag, &never}, in.files_read, in.config.enabled.value,
                        nullptr));
    return errors ? kExitInvalid : kExitOk;
  }
  print_diagnostics(in.diag);
  print_diagnostics(plan.diag);
  print_diagnostics(never);
  // Not a finding: what the initramfs does about a BOOTIF that names an InfiniBand port.
  if (const auto h = bootif_handoff(in.config); h && !h->words.empty())
    std::printf("note: %s\n", h->why.c_str());
  std::string files;
  for (const auto& f : in.files_read) files += " " + f;
  std::printf("check: %zu error%s, %zu warning%s; read:%s%s\n", errors, errors == 1 ? "" : "s",
              warnings, warnings == 1 ? "" : "s", files.empty() ? " no files" : files.c_str(),
              in.config.enabled.value ? "" : " (rd.rdma=0: disabled)");
  return errors ? kExitInvalid : kExitOk;
}

// The inputs merged, with this machine's row of the node table; an invalid input is
// shown too (its errors first), so that what it would have set can be seen.
int cmd_config(const Options& o) {
  auto p = prepare(o, "config");
  if (!p) return kExitUsage;
  print_diagnostics(p->in.diag);
  print(o.json ? effective_json(p->in.config, p->in.files_read)
               : effective_text(p->in.config, p->in.files_read));
  return p->in.diag.ok() ? kExitOk : kExitInvalid;
}

int cmd_plan(const Options& o) {
  auto p = prepare(o, "plan");
  if (!p) return kExitUsage;
  if (!p->in.diag.ok() && o.json) {
    // Nothing is planned from an invalid input; a tool reading JSON gets the findings.
    print(findings_json({&p->in.diag}, p->in.files_read, p->in.config.enabled.value, nullptr));
    return kExitInvalid;
  }
  print_diagnostics(p->in.diag);
  if (!p->in.diag.ok()) {
    // Nothing is planned from an invalid input.
    std::fprintf(stderr, "rdma-provision: plan: invalid input, nothing planned\n");
    return kExitInvalid;
  }
  Plan plan = make_plan(p->in.config, p->inv);
  print(o.json ? plan_json(plan) : plan_text(plan));
  return plan.diag.ok() ? kExitOk : kExitInvalid;
}

// At image-build time, on the build host: only the inputs are checked, not the plan's
// cross-checks against this machine, which is not the target of a generic image.
int cmd_image_needs(const Options& o) {
  Root root(o.root);
  if (!root_usable(root, o, "image-needs")) return kExitUsage;
  ImageNeedsOptions opt;
  opt.drivers = o.generic   ? DriverChoice::kGeneric
                : o.drivers ? DriverChoice::kGiven
                            : DriverChoice::kHost;
  if (o.drivers) opt.given = *o.drivers;
  opt.rdma_core = o.rdma_core;
  opt.config_path = o.inputs.config_path;
  // The build host's hardware matters only for a host-only image; its ports also resolve
  // the node table, which for other images must not depend on this machine.
  Inventory inv = opt.drivers == DriverChoice::kHost ? discover(root, Detail::kPlan) : Inventory{};
  Inputs in = load_inputs(root, o.inputs);
  // A target known by its drivers: what none of them can do fails the image build.
  if (opt.drivers == DriverChoice::kGiven) check_target(in.config, opt.given, in.diag);
  if (!in.diag.ok()) {
    print_diagnostics(in.diag);
    std::fprintf(stderr, "rdma-provision: image-needs: invalid input, nothing listed\n");
    return kExitInvalid;
  }
  const auto needs = image_needs(in, inv, opt);
  check_image_carries(in.config, needs, opt.drivers, in.diag);
  print_diagnostics(in.diag);
  print(image_needs_text(needs));
  return kExitOk;
}

}  // namespace rp
