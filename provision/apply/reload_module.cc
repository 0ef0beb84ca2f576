// reload-module: mlx4_en with new PFC masks. Its parameters are read-only once loaded
// (mlx4/en_main.c module_param, 0444), so the module is removed and loaded again, then
// every parameter is read back from /sys/module/<m>/parameters.
#include <string>
#include <vector>

#include "provision/apply/modules.h"
#include "provision/base/modprobe.h"
#include "provision/base/strings.h"

namespace rp {
namespace {}  // namespace

Outcome reload_module(ApplyContext& ctx, const Action& a, const ModuleLoading& how) {
  if (auto skip = live_only(ctx, how.loader.dry_run)) return *skip;
  const ModuleWanted want = wanted_of(a);
  const std::string module = modprobe_name(want.module);
  const std::string sys = "/sys/module/" + module;

  ModuleLoaderOptions look = how.loader;
  look.dry_run = true;
  auto probe = ModuleLoader::open(ctx.files.root(), look);
  if (!probe) return Outcome::failed(probe.error());
  const ModuleState st = probe.value().state(module);
  if (st == ModuleState::kBuiltin) {
    return Outcome::failed(
        make_error("", "module " + module + " is built into the kernel; its parameters (" +
                           want.options + ") can be set only on the kernel command line"),
        "add " + module + ".<param>=<value> to the kernel command line");
  }
  const bool is_loaded = st != ModuleState::kNotLoaded;
  if (is_loaded) {
    auto refcnt = ctx.files.read(sys + "/refcnt");
    // -1: unreadable. (A plain integer: gcc -O2 misreads an std::optional here as
    // maybe-uninitialized.)
    long long users = -1;
    if (refcnt) {
      if (auto v = parse_uint(trim(*refcnt))) users = static_cast<long long>(*v);
    }
    const std::vector<std::string> holders = ctx.files.root().list(sys + "/holders");
    if (users > 0 || !holders.empty()) {
      std::string who = "refcnt " + (users >= 0 ? std::to_string(users) : std::string("?"));
      if (!holders.empty()) who += ", used by " + join(holders, ", ");
      return Outcome::failed(
          make_error(sys + "/refcnt", "module " + module + " is in use (" + who +
                                          "): not reloaded with " + want.options),
          "stop what uses it first, or put 'options " + module + " " + want.options +
              "' in /etc/modprobe.d and reboot");
    }
  }

  Outcome o = load_one(ctx, a, is_loaded, how);
  if (o.kind != OutcomeKind::kDone && o.kind != OutcomeKind::kAlready) {
    if (is_loaded && !how.loader.dry_run && o.kind == OutcomeKind::kFailed) {
      o.detail = module + " may now be unloaded (its interfaces gone)" +
                 (o.detail.empty() ? "" : "; " + o.detail);
    }
    return o;
  }
  if (how.loader.dry_run) return o;

  // Parameters are read-only once loaded: read each one back from sysfs.
  std::vector<std::string> checked;
  for (auto token : split_ws(want.options)) {
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(token.substr(0, eq)), value(token.substr(eq + 1));
    const std::string path = sys + "/parameters/" + key;
    auto got = ctx.files.read(path);
    if (!got) {
      Error e = got.error();
      e.what = "cannot read back " + key + " after loading " + module + ": " + e.what;
      return Outcome::failed(e);
    }
    const std::string have(trim(*got));
    const auto w = parse_uint(value), h = parse_uint(have);
    if ((w && h) ? *w != *h : have != value) {
      return Outcome::failed(
          make_error(path, "reads " + have + " after loading " + module + ", wanted " + value),
          "the kernel ignores or resets values it does not accept (pfctx/pfcrx above 0xff "
          "become 0); check dmesg");
    }
    checked.push_back(key + "=" + have);
  }
  if (!checked.empty()) o.detail += "; read back " + join(checked, " ");
  return o;
}

}  // namespace rp
