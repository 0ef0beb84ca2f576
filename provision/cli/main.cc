// rdma-provision: makes a node's RDMA hardware ready in early boot.
// Commands: status (now), check/plan/apply (see the man page as they land).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "provision/apply/apply.h"
#include "provision/apply/modules.h"
#include "provision/base/root.h"
#include "provision/inputs/load.h"
#include "provision/inventory/inventory.h"
#include "provision/kernel/files.h"
#include "provision/kernel/verbs.h"
#include "provision/plan/plan.h"
#include "provision/report/handoff.h"
#include "provision/report/status.h"
#include "provision/version.h"

namespace rp {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;  // also: invalid input
constexpr int kExitInvalid = 2;

const char kUsage[] =
    "usage: rdma-provision [--version] [--help] <command> [options]\n"
    "\n"
    "commands:\n"
    "  status [--root DIR] [--json]   RDMA devices, ports, mlx4 port types and network links\n"
    "  check  [inputs]                validate every input; exit 2 when something is invalid\n"
    "  plan   [inputs] [--json]       the ordered actions apply would take (touches nothing)\n"
    "  apply  [inputs] [--log auto|kmsg|stderr]\n"
    "                                 carry out the plan; exit 0 all done, 1 some action\n"
    "                                 failed, 2 invalid input (nothing applied), 3 deadline\n"
    "  udev-rules [inputs] [--output FILE]\n"
    "                                 udev rules giving the configured persistent names\n"
    "\n"
    "options:\n"
    "  --root DIR            resolve every kernel path (/sys, /proc, /dev, /run, /etc,\n"
    "                        /lib/modules) under DIR instead of /; used with fixture trees\n"
    "  --json                print JSON instead of text\n"
    "inputs (default: the files under the root and its /proc/cmdline):\n"
    "  --config FILE         native configuration (a kernel path under the root)\n"
    "  --cmdline FILE        read the kernel command line from FILE (a host path)\n"
    "  --cmdline-string S    use S as the kernel command line\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "rdma-provision: %s\n%s", msg.c_str(), kUsage);
  return kExitUsage;
}

struct Options {
  std::string root = "/";
  bool json = false;
  std::string log = "auto";
  std::string output;
  InputOptions inputs;
};

// Parses the options shared by the commands; returns false (with a message) on an error.
bool parse_options(const std::vector<std::string>& args, Options& o, std::string& err) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto take = [&](const char* flag, std::string& out) {
      if (a == flag) {
        if (i + 1 >= args.size()) return false;
        out = args[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--json") {
      o.json = true;
    } else if (take("--config", v)) {
      o.inputs.config_path = v;
      o.inputs.config_path_given = true;
    } else if (take("--cmdline", v)) {
      o.inputs.cmdline_file = v;
    } else if (take("--cmdline-string", v)) {
      o.inputs.cmdline_text = v;
    } else if (take("--log", v)) {
      if (v != "auto" && v != "kmsg" && v != "stderr") {
        err = "--log " + v + " is not one of auto, kmsg, stderr";
        return false;
      }
      o.log = v;
    } else if (take("--output", v)) {
      o.output = v;
    } else if (a == "--config" || a == "--cmdline" || a == "--cmdline-string" || a == "--log" ||
               a == "--output") {
      err = a + " needs a value";
      return false;
    } else if (a == "--root" || a.rfind("--root=", 0) == 0) {
      if (a == "--root") {
        if (i + 1 >= args.size()) {
          err = "--root needs a directory";
          return false;
        }
        o.root = args[++i];
      } else {
        o.root = a.substr(7);
      }
      if (o.root.empty()) {
        err = "--root needs a directory";
        return false;
      }
    } else {
      err = "unknown option '" + a + "'";
      return false;
    }
  }
  return true;
}

bool root_usable(const Root& root, const Options& o, const char* cmd) {
  if (root.is_live() || root.is_dir("/")) return true;
  std::fprintf(stderr, "rdma-provision: %s: --root %s is not a directory\n", cmd, o.root.c_str());
  return false;
}

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

// Errors and warnings of the inputs, each once, with its source.
void print_diagnostics(const Diagnostics& d) {
  for (const auto& w : d.warnings) std::fprintf(stderr, "warning: %s\n", w.str().c_str());
  for (const auto& e : d.errors) std::fprintf(stderr, "error: %s\n", e.str().c_str());
}

// Inputs + cross-checks against the machine, all errors together.
struct Validated {
  Inputs in;
  Plan plan;
  bool ok() const { return in.diag.ok() && plan.diag.ok(); }
};

Validated validate_all(const Root& root, const Inventory& inv, const Options& o) {
  Validated v;
  v.in = load_inputs(root, inv, o.inputs);
  v.plan = make_plan(v.in.config, inv);
  return v;
}

int cmd_check(const std::vector<std::string>& args) {
  Options o;
  std::string err;
  if (!parse_options(args, o, err)) return usage_error("check: " + err);
  Root root(o.root);
  if (!root_usable(root, o, "check")) return kExitUsage;
  Inventory inv = discover(root, Detail::kPlan);
  Validated v = validate_all(root, inv, o);
  print_diagnostics(v.in.diag);
  print_diagnostics(v.plan.diag);
  const size_t errors = v.in.diag.errors.size() + v.plan.diag.errors.size();
  const size_t warnings = v.in.diag.warnings.size() + v.plan.diag.warnings.size();
  std::string files;
  for (const auto& f : v.in.files_read) files += " " + f;
  std::printf("check: %zu error%s, %zu warning%s; read:%s%s\n", errors, errors == 1 ? "" : "s",
              warnings, warnings == 1 ? "" : "s", files.empty() ? " no files" : files.c_str(),
              v.in.config.enabled.value ? "" : " (rd.rdma=0: disabled)");
  return errors ? kExitInvalid : kExitOk;
}

int cmd_plan(const std::vector<std::string>& args) {
  Options o;
  std::string err;
  if (!parse_options(args, o, err)) return usage_error("plan: " + err);
  Root root(o.root);
  if (!root_usable(root, o, "plan")) return kExitUsage;
  Inventory inv = discover(root, Detail::kPlan);
  Validated v = validate_all(root, inv, o);
  if (!v.in.diag.ok()) {
    // Nothing is planned from an invalid input.
    print_diagnostics(v.in.diag);
    std::fprintf(stderr, "rdma-provision: plan: invalid input, nothing planned\n");
    return kExitInvalid;
  }
  print_diagnostics(v.in.diag);
  print(o.json ? plan_json(v.plan) : plan_text(v.plan));
  return v.plan.diag.ok() ? kExitOk : kExitInvalid;
}

// Writes one of our own files under the root (not a kernel attribute): via a temporary
// file and rename, so a reader never sees half of it.
bool write_own_file(const Root& root, const std::string& path, const std::string& text,
                    std::string& err) {
  const std::string real = root.path(path);
  for (size_t slash = real.find('/', 1); slash != std::string::npos;
       slash = real.find('/', slash + 1)) {
    ::mkdir(real.substr(0, slash).c_str(), 0755);
  }
  const std::string tmp = real + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    err = make_error(path, "cannot write", errno).str();
    if (fd >= 0) ::close(fd);
    return false;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), real.c_str()) != 0) {
    err = make_error(path, "cannot rename into place", errno).str();
    return false;
  }
  return true;
}

// In the initramfs messages go to the kernel log (console, dmesg, journal).
Log::Sink make_sink(const Root& root, const std::string& choice) {
  const bool initramfs = root.exists("/etc/initrd-release") || root.exists("/run/initramfs");
  if (choice == "kmsg" || (choice == "auto" && initramfs && root.is_live())) {
    return kmsg_sink(root.path("/dev/kmsg"));
  }
  return stderr_sink();
}

int cmd_apply(const std::vector<std::string>& args, ModuleBatch batch) {
  Options o;
  std::string err;
  if (!parse_options(args, o, err)) return usage_error("apply: " + err);
  Root root(o.root);
  if (!root_usable(root, o, "apply")) return kExitUsage;
  Log log(make_sink(root, o.log));
  Inventory inv = discover(root, Detail::kPlan);
  Validated v = validate_all(root, inv, o);
  for (const auto& w : v.in.diag.warnings) log.warn(w.str());
  for (const auto& w : v.plan.diag.warnings) log.warn(w.str());
  if (!v.ok()) {
    for (const auto& e : v.in.diag.errors) log.error(e.str());
    for (const auto& e : v.plan.diag.errors) log.error(e.str());
    log.error("invalid input: nothing applied");
    return kExitInvalid;
  }
  if (!v.plan.enabled) {
    for (const auto& n : v.plan.notes) log.notice(n);
    write_own_file(root, kStatePath, state_json(v.in.config, v.plan, nullptr), err);
    return kExitOk;
  }
  for (const auto& n : v.plan.notes) log.notice(n);
  log.info(std::to_string(v.plan.actions.size()) + " actions planned, deadline " +
           std::to_string(v.plan.timeout_s) + " s");
  RealFileOps files(root);
  ApplyContext ctx{files, root.is_live(), Deadline(std::chrono::seconds(v.plan.timeout_s)), log};
  ApplyReport report = apply_plan(v.plan, ctx, batch);
  if (!write_own_file(root, kStatePath, state_json(v.in.config, v.plan, &report), err)) {
    log.error(err);
  }
  if (!v.in.config.names.empty() &&
      !write_own_file(root, kRunRulesPath, udev_rules(v.in.config), err)) {
    log.error(err);
  }
  return report.exit_code();
}

int cmd_udev_rules(const std::vector<std::string>& args) {
  Options o;
  std::string err;
  if (!parse_options(args, o, err)) return usage_error("udev-rules: " + err);
  Root root(o.root);
  if (!root_usable(root, o, "udev-rules")) return kExitUsage;
  Inventory inv = discover(root, Detail::kPlan);
  Inputs in = load_inputs(root, inv, o.inputs);
  print_diagnostics(in.diag);
  if (!in.diag.ok()) return kExitInvalid;
  const std::string rules = in.config.enabled.value ? udev_rules(in.config) : "";
  if (o.output.empty()) {
    print(rules);
    return kExitOk;
  }
  Root host("/");
  if (!write_own_file(host, o.output, rules, err)) {
    std::fprintf(stderr, "rdma-provision: %s\n", err.c_str());
    return 1;
  }
  return kExitOk;
}

int cmd_status(const std::vector<std::string>& args) {
  Options o;
  std::string err;
  if (!parse_options(args, o, err)) return usage_error("status: " + err);
  Root root(o.root);
  if (!root_usable(root, o, "status")) return kExitUsage;
  Inventory inv = discover(root, Detail::kFull);
  const std::string out = o.json ? status_json(inv) : status_text(inv);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace
}  // namespace rp

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return rp::usage_error("no command given");
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "--version" || cmd == "version") {
    std::string providers;
    for (const auto& p : rp::verbs_static_providers()) providers += " " + p;
    std::printf("rdma-provision %s\nverbs providers (static):%s\n", RDMA_PROVISION_VERSION,
                providers.c_str());
    return rp::kExitOk;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(rp::kUsage, stdout);
    return rp::kExitOk;
  }
  if (cmd == "status") return rp::cmd_status(args);
  if (cmd == "check") return rp::cmd_check(args);
  if (cmd == "plan") return rp::cmd_plan(args);
  if (cmd == "apply") {
    return rp::cmd_apply(args, [](rp::ApplyContext& ctx, const std::vector<const rp::Action*>& a) {
      return rp::load_modules_parallel(ctx, a);
    });
  }
  if (cmd == "udev-rules") return rp::cmd_udev_rules(args);
  return rp::usage_error("unknown command '" + cmd + "'");
}
