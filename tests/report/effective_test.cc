// The effective configuration (`rdma-provision config`): every value of every input, with
// its source; the text form reads back, through the native parser, into the same values.
#include "provision/report/effective.h"

#include <gtest/gtest.h>

#include "provision/inputs/cmdline.h"
#include "provision/inputs/native_conf.h"
#include "provision/inputs/rdma_core_files.h"

namespace rp {
namespace {

constexpr char kNative[] = R"([general]
required = yes
timeout = 90
allow_reload = yes
wait = mlx5_0/1, ib0
verify = ports

[modules]
load = mlx5_ib, rdma_ucm
defer = no
blacklist = mlx4_en

[module mlx4_core]
options = log_num_mgm_entry_size=-1

[mlx4 0000:03:00.0]
port1 = ib
port2 = eth
port1_mtu = 4096

[pfc]
tx = 0x08

[roce mlx5_0/1]
mode = v2
tos = 106

[roce *]
mode = v1

[ipoib ib0]
mode = connected
mtu = 65520

[pkey ib0 0x10]
name = stor0

[pkey ib0 0x20]

[name ibfab0]
match = 0002:c903:0031:7901

[rxe eth1]
name = rxe_fab

[siw eth2]

[dcb ens1f0np0]
trust = dscp
pfc = 3 4
tc_bw = 0:50 3:50

[expect mlx5_0/1]
link_layer = InfiniBand
sm = yes

[address stor0]
address = 10.10.1.1/16
route = default via 10.10.0.1
route = 10.20.0.0/16 via 10.10.0.2
)";

Config merged(Diagnostics& d) {
  Config cfg;
  parse_modprobe_conf("options mlx4_en pfcrx=0x08\noptions mlx4_en udp_rss=1\n",
                      "/etc/modprobe.d/mlx4.conf", cfg, d);
  parse_native_conf(kNative, "/etc/rdma-provision/rdma-provision.conf", cfg, d);
  parse_cmdline(
      "rd.rdma.modules=ib_ipoib rd.rdma.roce=mlx5_0/1:v2:96 rd.rdma.ipoib=ib0:datagram "
      "rd.rdma.name=fab0:52:54:00:12:34:56 "
      "rd.rdma.wait=mlx5_0/1 ip=fab0:dhcp root=nfs:10.0.0.1:/srv/root "
      "rd.rdma.name=fab1:pci-0000:af:00.0/2 rd.rdma.name=fab2:mlx5_0/1 "
      "ifname=mgmt0:52:54:00:00:00:01 rd.rdma.dcb=ens1f0np0:dscp_prio=26:3+46:5,prio_tc=3:3 "
      "rd.rdma.expect=*:rate=2.5,width=1x,phys_state=LinkUp "
      "rd.rdma.expect=mlx5_0:fw=16.35.2000,pcie_speed=max,pcie_width=16",
      cfg, d);
  return cfg;
}

std::string shown(const std::vector<EffectiveValue>& vs, bool with_sources) {
  std::string out;
  for (const auto& v : vs) {
    if (v.foreign) continue;
    out += "[" + v.section + "] " + v.key + " = " + v.value;
    if (with_sources) out += "  # " + v.source.str();
    out += "\n";
  }
  return out;
}

TEST(Effective, EveryValueNamesWhereItCameFrom) {
  Diagnostics d;
  const Config cfg = merged(d);
  ASSERT_TRUE(d.ok()) << (d.errors.empty() ? "" : d.errors[0].str());
  const std::string s = shown(effective_values(cfg), true);
  const std::string native = "/etc/rdma-provision/rdma-provision.conf:";
  // The command line overrides the file field by field: the MTU stays the file's.
  EXPECT_NE(s.find("[ipoib ib0] mode = datagram  # cmdline: rd.rdma.ipoib=ib0:datagram"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[ipoib ib0] mtu = 65520  # " + native + "33"), std::string::npos) << s;
  EXPECT_NE(s.find("[roce *] mode = v1  # " + native + "29"), std::string::npos) << s;
  EXPECT_NE(s.find("[roce mlx5_0/1] tos = 96  # cmdline: rd.rdma.roce=mlx5_0/1:v2:96"),
            std::string::npos)
      << s;
  // modprobe.d's options lines merge as libkmod merges them, both lines named.
  EXPECT_NE(s.find("[module mlx4_en] options = pfcrx=0x08 udp_rss=1  # "
                   "/etc/modprobe.d/mlx4.conf:1, /etc/modprobe.d/mlx4.conf:2"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[pfc] rx = 0x08  # /etc/modprobe.d/mlx4.conf:1"), std::string::npos) << s;
  EXPECT_NE(s.find("[general] timeout = 90  # " + native + "3"), std::string::npos) << s;
  EXPECT_NE(s.find("[general] enabled = yes  # default"), std::string::npos) << s;
  // rd.rdma.wait replaces the file's list; module loads add up.
  EXPECT_NE(s.find("[general] wait = mlx5_0/1  # cmdline: rd.rdma.wait=mlx5_0/1"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[modules] load = ib_ipoib  # cmdline: rd.rdma.modules=ib_ipoib"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[name fab0] match = 52:54:00:12:34:56  # cmdline: rd.rdma.name="),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("[pkey ib0 0x0020]  = "), std::string::npos) << s;
  // DCB: the file's keys beside the command line's, each with its own source.
  EXPECT_NE(s.find("[dcb ens1f0np0] pfc = 3 4  # " + native), std::string::npos) << s;
  EXPECT_NE(s.find("[dcb ens1f0np0] dscp_prio = 26:3 46:5  # cmdline: rd.rdma.dcb="),
            std::string::npos)
      << s;
  // Expected links, in the forms [expect] reads back.
  EXPECT_NE(s.find("[expect *] rate = 2.5  # cmdline: rd.rdma.expect=*:"), std::string::npos) << s;
  EXPECT_NE(s.find("[expect mlx5_0] pcie_speed = max  # cmdline:"), std::string::npos) << s;
  EXPECT_NE(s.find("[expect mlx5_0/1] sm = yes  # " + native), std::string::npos) << s;
  // dracut's parameters are shown, as read, and marked as not ours to set.
  std::string foreign;
  for (const auto& v : effective_values(cfg))
    if (v.foreign) foreign += v.section + " " + v.key + " = " + v.value + "\n";
  EXPECT_NE(foreign.find("dracut ifname = mgmt0:52:54:00:00:00:01"), std::string::npos) << foreign;
  EXPECT_NE(foreign.find("dracut nfs server = 10.0.0.1"), std::string::npos) << foreign;
  EXPECT_NE(foreign.find("dracut boot interface = fab0"), std::string::npos) << foreign;
}

// The text form is the native syntax: read back, it gives every value it shows.
TEST(Effective, TheTextReadsBackIntoTheSameValues) {
  Diagnostics d;
  const Config cfg = merged(d);
  ASSERT_TRUE(d.ok());
  const std::string text = effective_text(cfg, {"/etc/rdma-provision/rdma-provision.conf"});
  Config again;
  Diagnostics d2;
  parse_native_conf(text, "effective", again, d2);
  ASSERT_TRUE(d2.ok()) << d2.errors[0].str() << "\n" << text;
  EXPECT_EQ(shown(effective_values(again), false), shown(effective_values(cfg), false)) << text;
}

TEST(Effective, JsonCarriesEachValueWithItsSource) {
  Diagnostics d;
  const Config cfg = merged(d);
  const std::string j = effective_json(cfg, {"/etc/rdma-provision/rdma-provision.conf"});
  EXPECT_NE(j.find(R"("section": "roce mlx5_0/1",)"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("source": "cmdline: rd.rdma.roce=mlx5_0/1:v2:96",)"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("settable": false)"), std::string::npos) << j;
}

TEST(Effective, AnInvalidInputSaysWhatItLeavesUndone) {
  Diagnostics d;
  const Config cfg = merged(d);
  EXPECT_EQ(not_applied_summary(cfg),
            "[general] verify, [general] wait, [module mlx4_core], [module mlx4_en], "
            "[mlx4 0000:03:00.0], [pfc], [roce *], [roce mlx5_0/1], [ipoib ib0], "
            "[pkey ib0 0x0010], [pkey ib0 0x0020], [name fab0], [name fab1], [name fab2], [name "
            "ibfab0], [rxe eth1], "
            "[siw eth2], [dcb ens1f0np0], [expect *], [expect mlx5_0], [expect mlx5_0/1], "
            "[address stor0], 3 module loads");
  EXPECT_EQ(not_applied_summary(Config{}), "");
}

}  // namespace
}  // namespace rp
