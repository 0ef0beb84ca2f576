// What the libkmod side of ModuleLoader shares between its files (modules.cc: context,
// lookups, removal; module_load.cc: the phases of a load). Private to kernel/.
#pragma once

#include <libkmod.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "provision/base/modprobe.h"
#include "provision/base/root.h"
#include "provision/kernel/modules.h"

namespace rp {

struct CtxUnref {
  void operator()(kmod_ctx* c) const { kmod_unref(c); }
};
struct ModuleUnref {
  void operator()(kmod_module* m) const { kmod_module_unref(m); }
};
struct ListUnref {
  void operator()(kmod_list* l) const { kmod_module_unref_list(l); }
};
using CtxPtr = std::unique_ptr<kmod_ctx, CtxUnref>;
using ModulePtr = std::unique_ptr<kmod_module, ModuleUnref>;
using ListPtr = std::unique_ptr<kmod_list, ListUnref>;

// Module names use '_' where users often type '-' (/sys/module, modules.dep keys).
inline std::string normalize(std::string_view name) { return modprobe_name(name); }

// What libkmod logged at LOG_ERR during one operation. libkmod reports some problems
// only this way (a dependency whose file is missing is dropped from the list, and the
// probe goes on), so the messages are kept and examined.
struct KmodMessage {
  std::string function;
  std::string text;
};

struct ModuleLoader::Impl {
  Root root;
  ModuleLoaderOptions options;
  std::string kver;
  std::string kernel_dir;  // /lib/modules/<kver>
  CtxPtr ctx;
  std::vector<KmodMessage> messages;  // libkmod's LOG_ERR lines since the last clear
  std::set<std::string> removed;      // dry run: modules "removed" by remove()

  Impl(Root r, ModuleLoaderOptions o) : root(std::move(r)), options(std::move(o)) {}

  Error not_found(const std::string& module) const {
    std::string what = "module " + module + " not found in " + kernel_dir;
    if (!root.is_dir(kernel_dir)) what += " (the directory does not exist)";
    return make_error("", what);
  }

  void fail(ModuleLoadReport& r, const std::string& culprit, std::string what, int errnum = 0,
            std::string hint = "") const {
    r.status = LoadStatus::kFailed;
    r.failed_module = culprit;
    r.error = make_error("", std::move(what), errnum);
    r.hint = std::move(hint);
  }

  // The phases of one load (module_load.cc).
  ModuleState state(const std::string& module);
  // Built in or live already: the report says so (options that cannot apply are noted).
  bool present_already(ModuleLoadReport& r, const std::string& extra);
  // The whole probe list of `mod` as libkmod would insert it, without inserting and
  // without libkmod looking at the host's /sys/module (the root may be a fixture). A
  // module with a modprobe.d `install` command is listed with the options libkmod would
  // hand that command; it is inserted directly with them.
  int dry_probe(kmod_module* mod, const std::string& extra, std::vector<ModuleStep>* steps);
  // The probe list checked against the root before anything is inserted, so that a
  // missing file fails the load before half of it happened. false: r says why.
  bool preflight(ModuleLoadReport& r, kmod_module* mod, const std::string& extra);
  // The module of r.module, when this loader may insert it; else r says why not.
  ModulePtr module_to_insert(ModuleLoadReport& r);
  // The insertions, one step at a time with kmod_module_probe_insert_module()'s rules.
  void insert_steps(ModuleLoadReport& r, kmod_module* mod,
                    std::chrono::steady_clock::time_point until);

  // init_module(2) of one step: through the inserter, else libkmod's own insertion
  // (finit_module of the file, decompressed when needed). 0 or -errno.
  int insert(const ModuleStep& s) {
    if (options.inserter) return options.inserter->insert(s);
    kmod_module* raw = nullptr;
    if (int err = kmod_module_new_from_name(ctx.get(), s.module.c_str(), &raw); err < 0) {
      return err;
    }
    ModulePtr m(raw);
    if (const char* path = kmod_module_get_path(m.get()); path && compressed(path)) {
      return insert_compressed(path, s.options);
    }
    return kmod_module_insert_module(m.get(), 0, s.options.c_str());
  }

  // Whether a module file is compressed (Debian's 6.12 ships .ko.xz:
  // CONFIG_MODULE_COMPRESS_XZ; its 6.1, plain .ko). This libkmod is built without
  // decompression (rules/third_party/kmod.BUILD), and would hand the compressed bytes to
  // the kernel, which refuses them (ENOEXEC).
  static bool compressed(std::string_view path) {
    for (const char* ext : {".ko.xz", ".ko.zst", ".ko.gz"}) {
      const std::string_view e(ext);
      if (path.size() > e.size() && path.substr(path.size() - e.size()) == e) return true;
    }
    return false;
  }
  // The kernel decompresses it: finit_module(2) with MODULE_INIT_COMPRESSED_FILE
  // (kernel/module/main.c, where CONFIG_MODULE_DECOMPRESS is set; it shows
  // /sys/module/compression), as kmod 31 and later do. A kernel without it answers
  // EINVAL for the flag. 0 or -errno.
  static int insert_compressed(const char* path, const std::string& options);

  // delete_module(2) with O_NONBLOCK, the same way. 0 or -errno.
  int remove(const std::string& module) {
    if (options.inserter) return options.inserter->remove(module);
    kmod_module* raw = nullptr;
    if (int err = kmod_module_new_from_name(ctx.get(), module.c_str(), &raw); err < 0) {
      return err;
    }
    ModulePtr m(raw);
    return kmod_module_remove_module(m.get(), KMOD_REMOVE_NOLOG);
  }

  // Only the running kernel's own module tree may be inserted into it.
  bool may_touch_kernel() const { return options.dry_run || options.inserter || root.is_live(); }
};

}  // namespace rp
