// nl-ops: each kernel request rdma-provision's executors make, one per run, through the
// same provision/kernel functions they call (rtnl.h, rdma_nl.h), so that tests/e2e
// scenario 8-netlink-requests can capture it beside what iproute2's `ip` and `rdma` send
// for the same operation. Test-only; never part of the program.
//
//   nl-ops rename IF NEWNAME          rtnl_rename_link      (exec_rename)
//   nl-ops up|down IF                 rtnl_set_link_up      (exec_link_up, with_link_down)
//   nl-ops mtu IF N                   rtnl_set_mtu          (exec_mtu)
//   nl-ops addr IF PREFIX             rtnl_add_address      (exec_address)
//   nl-ops route IF DEST|default GW|- rtnl_add_route        (exec_route)
//   nl-ops pkey-child PARENT NAME PKEY [datagram|connected]
//                                     rtnl_add_pkey_child   (exec_pkey_child)
//   nl-ops ipoib-mode IF datagram|connected
//                                     rtnl_set_ipoib_mode   (exec_ipoib_mode)
//   nl-ops soft-link rxe|siw NAME IF  rdma_add_soft_link    (exec_soft_link)
//   nl-ops rdma-rename DEV NEWNAME    rdma_rename_device    (exec_rdma_rename)
//   nl-ops dcb-get IF                 DcbOps::get           (discover_dcb)
//   nl-ops dcb-pfc IF MASK            get, then set_pfc     (exec_dcb_pfc)
//   nl-ops dcb-ets IF BW0/../BW7      get, then set_ets     (exec_dcb_ets)
//   nl-ops dcb-app-add|dcb-app-del IF DSCP:PRIO
//                                     add_apps / del_apps   (exec_dcb_apps)
//
// Prints "nl-ops: ok" or "nl-ops: errno=N <the error rdma-provision would report>"; exits 0
// or 1 (2: usage).
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/types.h"
#include "provision/kernel/dcbnl.h"
#include "provision/kernel/rdma_nl.h"
#include "provision/kernel/rtnl.h"

namespace rp {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: nl-ops rename IF NEW | up IF | down IF | mtu IF N | addr IF PREFIX |\n"
               "       route IF DEST|default GW|- | pkey-child PARENT NAME PKEY [MODE] |\n"
               "       ipoib-mode IF MODE | soft-link rxe|siw NAME IF | rdma-rename DEV NEW |\n"
               "       dcb-get IF |\n"
               "       dcb-pfc IF MASK | dcb-ets IF BW/.../BW | dcb-app-add|dcb-app-del IF D:P\n");
  return 2;
}

int report(const Status& st) {
  if (st) {
    std::printf("nl-ops: ok\n");
    return 0;
  }
  std::printf("nl-ops: errno=%d %s\n", st.error().errnum, st.error().str().c_str());
  return 1;
}

int run(const std::vector<std::string>& a) {
  if (a.empty()) return usage();
  const std::string& op = a[0];
  if (op == "rename" && a.size() == 3) return report(rtnl_rename_link(a[1], a[2]));
  if ((op == "up" || op == "down") && a.size() == 2) {
    return report(rtnl_set_link_up(a[1], op == "up"));
  }
  if (op == "mtu" && a.size() == 3) {
    return report(
        rtnl_set_mtu(a[1], static_cast<unsigned>(std::strtoul(a[2].c_str(), nullptr, 10))));
  }
  if (op == "addr" && a.size() == 3) {
    auto p = IpPrefix::parse(a[2]);
    if (!p) return usage();
    return report(rtnl_add_address(a[1], *p));
  }
  if (op == "route" && a.size() == 4) {
    std::optional<IpPrefix> dest;
    if (a[2] != "default") {
      dest = IpPrefix::parse(a[2]);
      if (!dest) return usage();
    }
    std::optional<IpAddress> gw;
    if (a[3] != "-") {
      gw = IpAddress::parse(a[3]);
      if (!gw) return usage();
    }
    return report(rtnl_add_route(a[1], dest, gw));
  }
  if (op == "pkey-child" && (a.size() == 4 || a.size() == 5)) {
    PkeyChildSpec spec;
    spec.parent = a[1];
    spec.name = a[2];
    spec.pkey = static_cast<uint16_t>(std::strtoul(a[3].c_str(), nullptr, 0));
    if (a.size() == 5) {
      spec.mode = parse_ipoib_mode(a[4]);
      if (!spec.mode) return usage();
    }
    return report(rtnl_add_pkey_child(spec));
  }
  if (op == "ipoib-mode" && a.size() == 3) {
    auto m = parse_ipoib_mode(a[2]);
    if (!m) return usage();
    return report(rtnl_set_ipoib_mode(a[1], *m));
  }
  if (op == "soft-link" && a.size() == 4) {
    return report(rdma_add_soft_link(SoftLinkRequest{a[1], a[2], a[3]}));
  }
  if (op == "rdma-rename" && a.size() == 3) {
    return report(rdma_rename_device(RdmaRenameRequest{a[1], a[2]}));
  }
  // DCB as the executors send it (apply/dcb.cc): PFC and ETS read first and write the
  // struct as shown with the wanted fields changed (as `dcb pfc set` / `dcb ets set` do);
  // APP entries without a read (as `dcb app add` / `dcb app del` do).
  const DcbOps& dcb = kernel_dcb();
  if (op == "dcb-get" && a.size() == 2) {
    auto st = dcb.get(a[1]);
    return report(st ? ok_status() : Status(st.error()));
  }
  if (op == "dcb-pfc" && a.size() == 3) {
    auto st = dcb.get(a[1]);
    if (!st) return report(st.error());
    DcbPfcRequest r{static_cast<uint8_t>(std::strtoul(a[2].c_str(), nullptr, 0)), st->pfc_cap,
                    st->pfc_mbc, st->pfc_delay};
    return report(dcb.set_pfc(a[1], r));
  }
  if (op == "dcb-ets" && a.size() == 3) {
    auto st = dcb.get(a[1]);
    if (!st) return report(st.error());
    DcbEtsRequest r;
    r.ets_cap = st->ets_cap;
    r.prio_tc = st->prio_tc;
    r.tc_tsa.fill(2);  // IEEE_8021QAZ_TSA_ETS
    size_t at = 0;
    for (int tc = 0; tc < 8 && at <= a[2].size(); ++tc) {
      r.tc_bw[tc] = static_cast<uint8_t>(std::strtoul(a[2].c_str() + at, nullptr, 10));
      at = a[2].find('/', at);
      if (at == std::string::npos) break;
      ++at;
    }
    return report(dcb.set_ets(a[1], r));
  }
  if ((op == "dcb-app-add" || op == "dcb-app-del") && a.size() == 3) {
    const size_t colon = a[2].find(':');
    if (colon == std::string::npos) return usage();
    DcbAppEntry e{5, static_cast<uint8_t>(std::strtoul(a[2].c_str() + colon + 1, nullptr, 10)),
                  static_cast<uint16_t>(std::strtoul(a[2].c_str(), nullptr, 10))};
    return report(op == "dcb-app-add" ? dcb.add_apps(a[1], {e}) : dcb.del_apps(a[1], {e}));
  }
  return usage();
}

}  // namespace
}  // namespace rp

int main(int argc, char** argv) { return rp::run(std::vector<std::string>(argv + 1, argv + argc)); }
