// load_inputs() over a root made here: which files are read, in which order, and which
// are masked, as libkmod and rdma-core read them.
#include "provision/inputs/load.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace rp {
namespace {

namespace fs = std::filesystem;

class LoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/load_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void put(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(dir_ + path).parent_path());
    std::ofstream(dir_ + path) << text;
  }
  Inputs load(const std::string& cmdline = "") {
    InputOptions opt;
    opt.cmdline_text = cmdline;
    return load_inputs(Root(dir_), opt);
  }
  Config load_config(const std::string& cmdline) { return load(cmdline).config; }
  std::string dir_;
};

TEST_F(LoadTest, ModprobeDirectoriesMergeByFileNameAndTheEarlierDirectoryMasks) {
  // libkmod 30 (libkmod.c, libkmod-config.c): /etc, /run, /usr/local/lib, /lib; one order
  // by file name; a name in /etc hides the same name in /lib.
  put("/lib/modprobe.d/mlx4.conf", "options mlx4_en pfctx=0x04\n");
  put("/etc/modprobe.d/mlx4.conf", "options mlx4_en pfctx=0x08\n");
  put("/lib/modprobe.d/a-first.conf", "options ib_ipoib recv_queue_size=512\n");
  put("/run/modprobe.d/b-second.conf", "options ib_ipoib send_queue_size=256\n");
  put("/usr/local/lib/modprobe.d/c-local.conf", "blacklist ib_srpt\n");
  put("/etc/modprobe.d/mlx4.conf.dpkg-old", "options mlx4_en pfctx=0xff\n");
  Inputs in = load();
  ASSERT_TRUE(in.diag.ok());
  EXPECT_EQ(in.files_read,
            (std::vector<std::string>{
                "/lib/modprobe.d/a-first.conf", "/run/modprobe.d/b-second.conf",
                "/usr/local/lib/modprobe.d/c-local.conf", "/etc/modprobe.d/mlx4.conf"}));
  ASSERT_TRUE(in.config.pfc_tx);
  EXPECT_EQ(in.config.pfc_tx->value, 0x08u);
  EXPECT_EQ(in.config.module_options.at("ib_ipoib").value,
            "recv_queue_size=512 send_queue_size=256");
  ASSERT_EQ(in.config.blacklist.size(), 1u);
  EXPECT_EQ(in.config.blacklist[0].value, "ib_srpt");
}

TEST_F(LoadTest, NodesDFilesAreReadAfterTheConfigInTheOrderOfTheirNames) {
  // A fleet's table in several files beside the config: rows with or without a [nodes]
  // header; hidden files and files not ending in .conf are skipped.
  put("/etc/rdma-provision/rdma-provision.conf", "[nodes]\n52:54:00:77:00:01 name=fab0\n");
  put("/etc/rdma-provision/nodes.d/20-rack2.conf", "[nodes]\n52:54:00:77:00:03 name=fab0\n");
  put("/etc/rdma-provision/nodes.d/10-rack1.conf",
      "# rack 1\n52:54:00:77:00:02 name=fab0 mtu=9000\n");
  put("/etc/rdma-provision/nodes.d/.30-hidden.conf", "52:54:00:77:00:04 name=fab0\n");
  put("/etc/rdma-provision/nodes.d/40-old.conf.rpmsave", "52:54:00:77:00:05 name=fab0\n");
  Inputs in = load();
  ASSERT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  EXPECT_EQ(in.files_read, (std::vector<std::string>{"/etc/rdma-provision/rdma-provision.conf",
                                                     "/etc/rdma-provision/nodes.d/10-rack1.conf",
                                                     "/etc/rdma-provision/nodes.d/20-rack2.conf"}));
  EXPECT_EQ(in.config.nodes_by_mac.size(), 3u);
  const NodeEntry* e = in.config.node_entry(*HwKey::parse("52:54:00:77:00:02"));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->mtu, 9000u);
  EXPECT_EQ(e->source.str(), "/etc/rdma-provision/nodes.d/10-rack1.conf:2");
}

TEST_F(LoadTest, AKeyInTwoNodesDFilesIsAnErrorNamingBoth) {
  put("/etc/rdma-provision/nodes.d/a.conf", "52:54:00:77:00:02 name=fab0\n");
  put("/etc/rdma-provision/nodes.d/b.conf", "\n52:54:00:77:00:02 name=fab1\n");
  put("/etc/rdma-provision/nodes.d/c.conf", "[name x]\nmatch = pci-0000:af:00.0\n");
  put("/etc/rdma-provision/nodes.d/d.conf", "pci-0000:af:00.0 name=fab0\n");
  Inputs in = load();
  std::vector<std::string> errors;
  for (const auto& e : in.diag.errors) errors.push_back(e.str());
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                "/etc/rdma-provision/nodes.d/b.conf:2: node 52:54:00:77:00:02 is already listed "
                "at /etc/rdma-provision/nodes.d/a.conf:1",
                "/etc/rdma-provision/nodes.d/c.conf:1: section '[name x]' in a nodes.d file, "
                "which holds node-table rows only",
                "/etc/rdma-provision/nodes.d/d.conf:1: node pci-0000:af:00.0: a row is keyed by "
                "a port GUID or a MAC address, one node's own; a name by PCI function or RDMA "
                "port is the same on every node: give it with rd.rdma.name= or [name <ifname>]"}));
}

TEST_F(LoadTest, NodesDIsBesideAConfigGivenElsewhere) {
  put("/srv/fleet/rdma.conf", "[general]\nrequired = yes\n");
  put("/srv/fleet/nodes.d/a.conf", "52:54:00:77:00:02 name=fab0\n");
  put("/etc/rdma-provision/nodes.d/b.conf", "52:54:00:77:00:03 name=fab0\n");
  InputOptions opt;
  opt.cmdline_text = "";
  opt.config_path = "/srv/fleet/rdma.conf";
  opt.config_path_given = true;
  Inputs in = load_inputs(Root(dir_), opt);
  ASSERT_TRUE(in.diag.ok()) << in.diag.errors[0].str();
  EXPECT_EQ(in.files_read,
            (std::vector<std::string>{"/srv/fleet/rdma.conf", "/srv/fleet/nodes.d/a.conf"}));
}

TEST_F(LoadTest, IbPkeyIsLeftToNetworkManagerWhenTheImageHasIt) {
  InputOptions opt;
  opt.cmdline_text = "ib.pkey=ib0.8001 rd.rdma.pkey=ib0:0x8002";
  // Without NetworkManager in the image: ours, as before.
  Inputs plain = load_inputs(Root(dir_), opt);
  EXPECT_EQ(plain.config.pkeys.size(), 2u);
  EXPECT_TRUE(plain.diag.warnings.empty());
  // The generator on the real root (or a build host) is no NetworkManager in the image.
  put("/usr/libexec/nm-initrd-generator", "");
  EXPECT_EQ(load_inputs(Root(dir_), opt).config.pkeys.size(), 2u);
  // In the initramfs (dracut's 35network-manager installs the generator): said once, left
  // to NM; at image build, --network-manager says the same.
  InputOptions built = opt;
  built.network_manager = true;
  EXPECT_EQ(load_inputs(Root(dir_), built).config.pkeys.size(), 1u);
  put("/etc/initrd-release", "");
  Inputs nm = load_inputs(Root(dir_), opt);
  ASSERT_EQ(nm.config.pkeys.size(), 1u);
  EXPECT_EQ(nm.config.pkeys.begin()->second.source.str(), "cmdline: rd.rdma.pkey=ib0:0x8002");
  ASSERT_EQ(nm.diag.warnings.size(), 1u);
  EXPECT_EQ(nm.diag.warnings[0].str(),
            "cmdline: ib.pkey=ib0.8001: left to NetworkManager: this image has "
            "nm-initrd-generator, which creates the partition ib0.8001 itself");
}

// An initramfs with NetworkManager but without its generator configures no interface:
// said once; never on the real root, nor with the generator in any of dracut's places.
TEST_F(LoadTest, NetworkManagerWithoutItsGeneratorIsSaid) {
  InputOptions opt;
  opt.cmdline_text = "";
  put("/usr/sbin/NetworkManager", "");
  EXPECT_TRUE(load_inputs(Root(dir_), opt).diag.warnings.empty()) << "the real root";
  put("/etc/initrd-release", "");
  Inputs in = load_inputs(Root(dir_), opt);
  ASSERT_EQ(in.diag.warnings.size(), 1u);
  EXPECT_EQ(in.diag.warnings[0].where, "/usr/sbin/NetworkManager");
  EXPECT_NE(in.diag.warnings[0].what.find("nm-initrd-generator is not"), std::string::npos);
  put("/usr/lib/NetworkManager/nm-initrd-generator", "");
  EXPECT_TRUE(load_inputs(Root(dir_), opt).diag.warnings.empty());
}

// ib.pkey= and rd.rdma.pkey= for one partition, in either order: without NetworkManager
// both are ours (one child); with it, NM creates its child, ours is left to it when it is
// the same interface and refused when it would be a second one.
TEST_F(LoadTest, IbPkeyAndRdRdmaPkeyForOnePartition) {
  auto load = [&](const char* cmdline) {
    InputOptions opt;
    opt.cmdline_text = cmdline;
    return load_inputs(Root(dir_), opt);
  };
  for (const char* same :
       {"ib.pkey=ib0.8002 rd.rdma.pkey=ib0:0x8002", "rd.rdma.pkey=ib0:0x8002 ib.pkey=ib0.8002"}) {
    Inputs plain = load(same);
    EXPECT_TRUE(plain.diag.ok() && plain.diag.warnings.empty()) << same;
    ASSERT_EQ(plain.config.pkeys.size(), 1u) << same;
    EXPECT_EQ(plain.config.pkeys.begin()->second.source.str(), "cmdline: rd.rdma.pkey=ib0:0x8002");
  }
  put("/etc/initrd-release", "");
  put("/usr/libexec/nm-initrd-generator", "");
  for (const char* same :
       {"ib.pkey=ib0.8002 rd.rdma.pkey=ib0:0x8002", "rd.rdma.pkey=ib0:0x8002 ib.pkey=ib0.8002"}) {
    Inputs nm = load(same);
    EXPECT_TRUE(nm.diag.ok()) << same;
    EXPECT_TRUE(nm.config.pkeys.empty()) << same;
    ASSERT_EQ(nm.diag.warnings.size(), 1u) << same;
    EXPECT_EQ(nm.diag.warnings[0].str(),
              "cmdline: rd.rdma.pkey=ib0:0x8002: the same partition as cmdline: ib.pkey=ib0.8002, "
              "which NetworkManager creates in this image (it has nm-initrd-generator): left to "
              "NetworkManager");
  }
  // One partition spelled two ways (the kernel ORs 0x8000 in, ipoib_netlink.c
  // ipoib_new_child_link): one child, named as NetworkManager's ib.pkey= wrote it, in
  // either order (before, ib.pkey= first gave ib0.2, the other order ib0.8002 as well).
  for (const char* spelled :
       {"ib.pkey=ib0.2 rd.rdma.pkey=ib0:0x2", "rd.rdma.pkey=ib0:0x2 ib.pkey=ib0.2",
        "ib.pkey=ib0.8002 rd.rdma.pkey=ib0:2", "rd.rdma.pkey=ib0:2 ib.pkey=ib0.8002"}) {
    Inputs in = load(spelled);
    EXPECT_TRUE(in.diag.ok()) << spelled;
    EXPECT_TRUE(in.config.pkeys.empty()) << spelled << ": left to NetworkManager";
    ASSERT_EQ(in.config.boot.nm_pkeys.size(), 1u) << spelled;
    const std::string nm_name =
        std::string(spelled).find("ib0.2") != std::string::npos ? "ib0.2" : "ib0.8002";
    EXPECT_EQ(in.config.boot.nm_pkeys[0].child_name(), nm_name) << spelled;
  }
  Inputs two = load("rd.rdma.pkey=ib0:0x8002:storage ib.pkey=ib0.8002");
  ASSERT_EQ(two.diag.errors.size(), 1u);
  EXPECT_EQ(two.diag.errors[0].str(),
            "cmdline: rd.rdma.pkey=ib0:0x8002:storage: asks for partition 0x8002 on ib0 as "
            "'storage', and cmdline: ib.pkey=ib0.8002 asks NetworkManager (in this image) for it "
            "as 'ib0.8002': give it one name, or drop one of them");
}

// rd.rdma.verify=peer with root=dhcp: the server dracut's DHCP handler recorded for the
// interface now online (the forms of the file: tests/inputs/dhcp_root_test.cc).
TEST_F(LoadTest, TheOnlineInterfacesFileGivesThePeerWithItsSource) {
  put("/tmp/dhclient.fabric0.dhcpopts", "new_root_path='10.77.0.1:/export/root'\n");
  put("/tmp/dhclient.aux0.dhcpopts", "new_ip_address='10.77.8.2'\n");
  Config cfg = load_config("root=dhcp rd.rdma.verify=peer");
  ASSERT_TRUE(cfg.boot.nfs_server_unknown);
  EXPECT_EQ(read_dhcp_root(Root(dir_), "aux0", cfg),
            "no DHCP root-path from aux0 (cmdline: root=dhcp)");
  EXPECT_FALSE(cfg.boot.nfs_server);
  EXPECT_EQ(read_dhcp_root(Root(dir_), "fabric0", cfg),
            "the NFS server 10.77.0.1 from DHCP (/tmp/dhclient.fabric0.dhcpopts: new_root_path)");
  ASSERT_TRUE(cfg.boot.nfs_server);
  EXPECT_EQ(cfg.boot.nfs_server->value.str(), "10.77.0.1");
  EXPECT_EQ(cfg.boot.nfs_server->source.str(), "/tmp/dhclient.fabric0.dhcpopts (new_root_path)");
  // The hand-off (no interface): any interface's record.
  Config all = load_config("root=dhcp rd.rdma.verify=peer");
  read_dhcp_root(Root(dir_), "", all);
  ASSERT_TRUE(all.boot.nfs_server);
  // A server given on the command line is never replaced.
  Config given = load_config("root=nfs:10.77.0.5:/r rd.rdma.verify=peer");
  EXPECT_EQ(read_dhcp_root(Root(dir_), "fabric0", given), "");
  EXPECT_EQ(given.boot.nfs_server->value.str(), "10.77.0.5");
}

// At image build, `check` says when the peer can never be known; DHCP's is known at boot.
TEST_F(LoadTest, CheckSaysWhenThePeerCannotBeKnown) {
  auto warnings = [&](const char* cmdline) {
    std::string all;
    for (const auto& w : load(cmdline).diag.warnings) all += w.str() + "\n";
    return all;
  };
  EXPECT_EQ(warnings("root=nfs:srv.example:/export/root rd.rdma.verify=peer"),
            "cmdline: rd.rdma.verify=peer: peer: cmdline: root=nfs:srv.example:/export/root "
            "names the NFS server by host name (srv.example): the peer cannot be known (no "
            "name is resolved); the check will fail at boot: write rd.rdma.verify=peer:ADDR\n");
  EXPECT_EQ(warnings("rd.rdma.verify=peer"),
            "cmdline: rd.rdma.verify=peer: peer: no address given and root= names no NFS "
            "server: the check will fail at boot: write rd.rdma.verify=peer:ADDR\n");
  for (const char* fine : {"root=dhcp rd.rdma.verify=peer", "root=nfs:/export rd.rdma.verify=peer",
                           "root=nfs:srv.example:/r rd.rdma.verify=peer:10.77.0.1",
                           "root=nfs4:10.77.0.1:/r rd.rdma.verify=peer"}) {
    EXPECT_EQ(warnings(fine), "") << fine;
  }
}

// .link files as udev's net_setup_link finds them (conf-files.c conf_files_list_strv):
// a file in /etc masks the one of the same name below it, an empty one masks and is
// nothing, all read in order of file name whatever their directory; 70-persistent-ipoib
// .rules (run before 80-net-setup-link.rules applies a .link's name) wins over them.
TEST_F(LoadTest, LinkFilesInUdevsOrderAndMasking) {
  const std::string naming = "[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nName=";
  put("/usr/lib/systemd/network/70-names.link", naming + "vendor0\n");
  InputOptions opt;
  opt.cmdline_text = "";
  Inputs lib = load_inputs(Root(dir_), opt);
  ASSERT_EQ(lib.config.names.count("vendor0"), 1u);
  put("/etc/systemd/network/70-names.link", naming + "admin0\n");
  Inputs etc = load_inputs(Root(dir_), opt);
  EXPECT_EQ(etc.config.names.count("vendor0"), 0u);
  EXPECT_EQ(etc.config.names.count("admin0"), 1u);
  put("/etc/systemd/network/70-names.link", "");
  EXPECT_TRUE(load_inputs(Root(dir_), opt).config.names.empty()) << "masked";
  put("/etc/systemd/network/70-names.link", naming + "admin0\n");
  put("/etc/udev/rules.d/70-persistent-ipoib.rules",
      "ATTR{address}==\"52:54:00:12:34:56\", NAME=\"rules0\"\n");
  Inputs both = load_inputs(Root(dir_), opt);
  EXPECT_EQ(both.config.names.count("rules0"), 1u);
  EXPECT_EQ(both.config.names.count("admin0"), 0u);
  EXPECT_EQ(both.diag.warnings.size(), 1u) << "the conflict is said";
}

}  // namespace
}  // namespace rp
