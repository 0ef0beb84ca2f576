#include "tests/modules/fake_rdma_tree.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "tests/support/fixture.h"
#include "tests/support/kmod_index.h"

namespace rp::testing {

namespace {

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "cannot write the fake module tree: %s\n", what.c_str());
    std::abort();
  }
}

}  // namespace

std::string make_fake_rdma_root(const FakeRdmaTreeOptions& options) {
  const std::string root = temp_dir("modroot");
  const std::string ib = "kernel/drivers/infiniband/";
  const std::string core = ib + "core/";
  const std::string mlx4 = "kernel/drivers/net/ethernet/mellanox/mlx4/";
  const std::string sunrpc = "kernel/net/sunrpc/";
  // modules.dep lists a module's whole dependency closure, most dependent first; libkmod
  // loads it in reverse.
  FakeModuleTree tree;
  tree.kernel_release = kFakeKernelRelease;
  tree.modules = {
      {"ib_core", core + "ib_core.ko", {}},
      {"ib_cm", core + "ib_cm.ko", {core + "ib_core.ko"}},
      {"iw_cm", core + "iw_cm.ko", {core + "ib_core.ko"}},
      {"ib_uverbs", core + "ib_uverbs.ko", {core + "ib_core.ko"}},
      {"ib_umad", core + "ib_umad.ko", {core + "ib_core.ko"}},
      {"rdma_cm", core + "rdma_cm.ko", {core + "iw_cm.ko", core + "ib_cm.ko", core + "ib_core.ko"}},
      {"rdma_ucm",
       core + "rdma_ucm.ko",
       {core + "rdma_cm.ko", core + "iw_cm.ko", core + "ib_uverbs.ko", core + "ib_cm.ko",
        core + "ib_core.ko"}},
      {"ib_ipoib", ib + "ulp/ipoib/ib_ipoib.ko", {core + "ib_cm.ko", core + "ib_core.ko"}},
      {"ib_srpt", ib + "ulp/srpt/ib_srpt.ko", {core + "ib_cm.ko", core + "ib_core.ko"}},
      {"sunrpc", sunrpc + "sunrpc.ko", {}},
      {"rpcrdma",
       sunrpc + "xprtrdma/rpcrdma.ko",
       {core + "rdma_cm.ko", core + "iw_cm.ko", core + "ib_cm.ko", core + "ib_core.ko",
        sunrpc + "sunrpc.ko"}},
      {"siw", ib + "sw/siw/siw.ko", {core + "ib_core.ko"}},
      {"mlx4_core", mlx4 + "mlx4_core.ko", {}, options.mlx4_core_file},
      {"mlx4_en", mlx4 + "mlx4_en.ko", {mlx4 + "mlx4_core.ko"}},
      {"mlx4_ib",
       ib + "hw/mlx4/mlx4_ib.ko",
       {core + "ib_uverbs.ko", core + "ib_core.ko", mlx4 + "mlx4_core.ko"}},
  };
  tree.aliases = {
      {"xprtrdma", "rpcrdma"},
      {"svcrdma", "rpcrdma"},
      {"rdma_link_siw", "siw"},
      {"pci:v000015B3d00001003sv*sd*bc*sc*i*", "mlx4_core"},
  };
  tree.builtin = {"configfs"};
  check(write_module_tree(root, tree), "modules");
  check(write_text(root + "/etc/modprobe.d/rdma.conf",
                   "options ib_ipoib send_queue_size=256\n"
                   "blacklist siw\n"
                   "blacklist ib_srpt\n"
                   "install mlx4_core /sbin/modprobe --ignore-install mlx4_core && "
                   "/usr/libexec/mlx4-setup.sh < /etc/rdma/mlx4.conf\n"),
        "rdma.conf");
  if (!options.extra_modprobe_conf.empty()) {
    check(write_text(root + "/etc/modprobe.d/zz-test.conf", options.extra_modprobe_conf),
          "zz-test.conf");
  }
  check(write_text(root + "/sys/module/.keep", ""), "/sys/module");
  return root;
}

void mark_loaded(const std::string& root, const std::string& module, int refcnt) {
  const std::string dir = root + "/sys/module/" + module;
  check(write_text(dir + "/initstate", "live\n"), dir);
  check(write_text(dir + "/refcnt", std::to_string(refcnt) + "\n"), dir);
  std::filesystem::create_directories(dir + "/holders");
}

}  // namespace rp::testing
