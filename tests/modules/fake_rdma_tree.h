// A fake Debian 6.1 module tree with the RDMA stack (ib_core ... rpcrdma, mlx4), written
// with libkmod's binary indexes under a fresh root, for the module loader tests.
#pragma once

#include <string>

namespace rp::testing {

inline constexpr char kFakeKernelRelease[] = "6.1.0-28-amd64";

struct FakeRdmaTreeOptions {
  bool mlx4_core_file = true;       // false: modules.dep lists mlx4_core.ko, the file is gone
  std::string extra_modprobe_conf;  // appended as <root>/etc/modprobe.d/zz-test.conf
};

// Returns the root directory. Modules (load order within each dependency list):
//   ib_core; ib_cm, iw_cm, ib_uverbs, ib_umad -> ib_core; rdma_cm -> ib_core, ib_cm, iw_cm;
//   rdma_ucm -> ib_core, ib_cm, ib_uverbs, iw_cm, rdma_cm; ib_ipoib -> ib_core, ib_cm;
//   sunrpc; rpcrdma (aliases xprtrdma, svcrdma) -> sunrpc, ib_core, ib_cm, iw_cm, rdma_cm;
//   siw (alias rdma-link-siw) -> ib_core; mlx4_core (PCI alias 15b3:1003);
//   mlx4_en -> mlx4_core; mlx4_ib -> ib_core, ib_uverbs, mlx4_core; ib_srpt -> ib_core, ib_cm.
// Built in: configfs. Not present: rdma_rxe.
// modprobe.d/rdma.conf: options ib_ipoib send_queue_size=256; blacklist siw; blacklist
// ib_srpt; the Red Hat style `install mlx4_core ...` line.
std::string make_fake_rdma_root(const FakeRdmaTreeOptions& options = {});

// Marks a module loaded in <root>/sys/module/<m> (initstate live, refcnt `refcnt`).
void mark_loaded(const std::string& root, const std::string& module, int refcnt = 0);

}  // namespace rp::testing
