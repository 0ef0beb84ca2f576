// The golden cases: a fixture tree plus a command line (and maybe a native config). Shared
// by the plan golden test (tests/plan/golden/<name>.{txt,json}) and the apply-on-fixture
// test of the command line tool (tests/cli/apply_fixtures_test.cc).
#pragma once

namespace rp::testing {

struct Case {
  const char* name;
  const char* fixture;
  const char* cmdline;
  const char* config;  // native config text, or nullptr
};

inline constexpr Case kGoldenCases[] = {
    {"cx3_eth_eth", "cx3-vpi", "rd.rdma.mlx4=0000:81:00.0/eth,eth", nullptr},
    {"cx3_ib_ib_mtu", "cx3-vpi", "rd.rdma.mlx4=0000:81:00.0/ib,ib",
     "[mlx4 0000:81:00.0]\nport2_mtu = 2048\n"},
    {"cx3_full", "cx3-vpi",
     "root=nfs4:10.0.0.1:/srv/root:rdma,port=20049 ip=storage0:dhcp rd.neednet=1 "
     "rd.rdma.wait=mlx4_0/1,storage0",
     "[general]\nallow_reload = yes\n[pfc]\ntx = 0x08\n[roce mlx4_0/2]\nmode = v2\ntos = 106\n"
     "[name storage0]\nmatch = f4:52:14:03:00:7b:cb:a1\n[ipoib storage0]\nmode = connected\n"
     "mtu = 65520\n[pkey storage0 0x12]\n"},
    {"cx3_already_there", "cx3-vpi", "rd.rdma.mlx4=0000:81:00.0/ib,eth rd.rdma.wait=mlx4_0/1",
     "[ipoib ib0]\nmode = datagram\nmtu = 2044\n"},
    {"cx3_absent_card", "cx3-vpi", "rd.rdma.mlx4=0000:99:00.0/eth rd.rdma.roce=mlx5_7:v2", nullptr},
    // eno1 (e1000e, no RDMA side: the management NIC) holds the wanted name: an error...
    {"cx3_name_collision", "cx3-vpi", "rd.rdma.name=eno1:f4:52:14:7b:cb:a2", nullptr},
    // ...unless the configuration allows moving it out of the way.
    {"cx3_name_collision_allowed", "cx3-vpi", "rd.rdma.name=eno1:f4:52:14:7b:cb:a2",
     "[general]\nallow_rename_other = yes\n"},
    {"sriov_read_only", "cx3-sriov-eth", "rd.rdma.mlx4=0000:03:00.0/ib,ib", nullptr},
    {"cx5_ib_connected_refused", "cx5-ib", "rd.rdma.ipoib=ib0:connected:65520", nullptr},
    {"cx5_ib_mtu_over_link", "cx5-ib", "rd.rdma.ipoib=ib0:datagram:4096", nullptr},
    {"cx5_ib_pkeys", "cx5-ib",
     "rd.rdma.name=ibdata:0c42:a103:0016:b2c4 rd.rdma.pkey=ibdata:0x20 ib.pkey=ibdata.0030 "
     "rd.rdma.wait=all",
     nullptr},
    // hpc0, a P_Key child made over rtnetlink (no pkey/parent files) whose name sorts
    // before its parent's: it is neither renamed as the GUID's interface nor made again.
    {"cx5_ib_netlink_child", "cx5-ib",
     "rd.rdma.name=fabric0:0c42:a103:0016:b2c4 rd.rdma.pkey=fabric0:0x40:hpc0", nullptr},
    {"cx5_roce_all_ports", "cx5-roce", "rd.rdma.roce=*:v2:106", nullptr},
    // wait=all: the ports the configuration involves. mlx5_1/1 reads DOWN/Disabled because
    // its interface is down (mlx5_query_port_roce): the plan brings ens1f1np1 up and waits
    // for it (a link-up the fixture run skips: it acts on the running kernel only). An
    // unconfigured node waits for nothing (four_hca_wait_all_alone).
    {"cx5_roce_wait_all", "cx5-roce", "rd.rdma.roce=*:v2:106 rd.rdma.wait=all", nullptr},
    {"four_hca_wait_all_alone", "four-hca", "rd.rdma.wait=all", nullptr},
    // Devices by what survives rdma-core's renames (60-rdma-persistent-naming.rules): the
    // PCI function, the node GUID, the port's interface; and rdma-core's name of a device
    // not renamed here (rocep175s0f0 is mlx5_0 at 0000:af:00.0).
    {"cx5_roce_by_pci_guid", "cx5-roce",
     "rd.rdma.roce=pci-0000:af:00.0:v2:106 rd.rdma.wait=guid-9803:9b03:0046:8a10/1", nullptr},
    {"cx5_roce_rdma_core_name", "cx5-roce", "rd.rdma.roce=rocep175s0f0/1:v2",
     "[general]\nwait = rocep175s0f0/1\n"},
    // Renamed here: the kernel's name mlx5_0 is absent, and said so as a warning; the
    // interface's port is found under its new name.
    {"cx5_renamed_kernel_name", "cx5-renamed", "rd.rdma.roce=mlx5_0/1:v2 rd.rdma.wait=mlx5_0/1",
     nullptr},
    {"cx5_renamed_by_netdev", "cx5-renamed",
     "rd.rdma.roce=netdev-ens1f0np0:v2:106 rd.rdma.wait=netdev-ens1f0np0", nullptr},
    {"cx5_roce_swap_names", "cx5-roce",
     "rd.rdma.name=ens1f1np1:98:03:9b:46:8a:10 rd.rdma.name=ens1f0np0:98:03:9b:46:8a:11", nullptr},
    // Fixed RDMA device names: the two trade names through a temporary one, first; the RoCE
    // defaults and the wait name the device by its new name and come after.
    {"cx5_roce_devname_swap", "cx5-roce",
     "rd.rdma.devname=mlx5_1:pci-0000:af:00.0 rd.rdma.devname=mlx5_0:pci-0000:af:00.1 "
     "rd.rdma.roce=mlx5_1/1:v2:106 rd.rdma.wait=mlx5_1/1",
     nullptr},
    // The link the fabric expects of an InfiniBand port and its HCA, checked after the wait.
    {"cx5_ib_expect", "cx5-ib",
     "rd.rdma.expect=*:rate=400,width=4x,sm=yes rd.rdma.expect=mlx5_0:fw=16.35.2000,pcie_width=max",
     nullptr},
    {"rxe_existing", "rxe-virtio",
     "rd.rdma.rxe=eth0 rd.rdma.roce=rxe0/1:v2:106 rd.rdma.name=roce0:52:54:00:77:00:01 "
     "rd.rdma.wait=rxe0/1",
     nullptr},
    {"rxe_v1_refused", "rxe-virtio", "rd.rdma.roce=rxe0/1:v1", nullptr},
    // eno1 (e1000e) has no RDMA device and rdma_rxe is not loaded: the module, then the
    // link, then its RoCE defaults and the wait for its port.
    // rxe_new_link (below) by the interface: what names the new device before it exists.
    {"rxe_new_link_by_netdev", "cx3-vpi",
     "rd.rdma.rxe=eno1:rxe0 rd.rdma.roce=netdev-eno1:v2:106 rd.rdma.wait=netdev-eno1", nullptr},
    {"rxe_new_link", "cx3-vpi",
     "rd.rdma.rxe=eno1:rxe0 rd.rdma.roce=rxe0/1:v2:106 rd.rdma.wait=rxe0/1", nullptr},
    // eth0 has its Soft-RoCE link already, as rxe0: nothing is planned, the notes say why.
    {"rxe_exists_as_another_name", "rxe-virtio",
     "rd.rdma.rxe=eth0:rxe1 rd.rdma.roce=rxe1/1:v2:106 rd.rdma.wait=rxe1/1", nullptr},
    {"siw_existing", "siw", "rd.rdma.siw=ens785f0 rd.rdma.roce=*:v2", nullptr},
    {"four_hca_node_table", "four-hca", "rd.rdma.wait=all rd.rdma.timeout=120",
     "[nodes]\n"
     "f452:1403:007b:d001 name=ibstor0 address=10.1.0.1/16 pkeys=0x10\n"
     "f452:1403:007b:d012 name=ibstor1 mtu=2044\n"
     "f452:1403:007b:ffff name=notthisnode\n"},
    {"disabled", "cx3-vpi", "rd.rdma=0 rd.rdma.mlx4=0000:81:00.0/eth,eth", nullptr},
    // Hardware as real captures show it (tests/fixtures/*.sys say whose). A single-port
    // ConnectX-3 with built-in drivers and no /proc/modules: port 2 is left out, nothing
    // is loaded (the device, its driver's binding and ib0 show the drivers are there).
    {"cx3_single_builtin", "cx3-single-builtin",
     "rd.rdma.mlx4=0000:03:00.0/ib,eth rd.rdma.ipoib=ib0:connected:2044 ip=ib0:dhcp "
     "rd.rdma.wait=all",
     "[mlx4 0000:03:00.0]\nport2_mtu = 2048\n"},
    // Omni-Path beside a Broadcom NIC: an IPoIB root loads ib_ipoib (no modalias), bnxt_re
    // loads for bnxt_en, a RoCE setting for the InfiniBand port is refused at plan time.
    {"opa_ipoib_root", "opa-bnxt",
     "ip=ib0:dhcp root=nfs:10.0.0.1:/srv/root rd.rdma.roce=hfi1_0/1:v2 rd.rdma.wait=all", nullptr},
    // The initramfs moment on a ConnectX-5: RoCE ports DOWN until their interfaces are up.
    {"cx5_initramfs_wait_verify", "cx5-initramfs",
     "rd.rdma.roce=mlx5_0/1:v2:106 rd.rdma.wait=mlx5_0/1 rd.rdma.verify=ports "
     "ip=ens1f0np0:dhcp",
     nullptr},
    {"cx5_initramfs_wait_all", "cx5-initramfs", "rd.rdma.roce=*:v2 rd.rdma.wait=all", nullptr},
    // rdma-core's names of devices not renamed here (kernel-boot/rdma_rename.c): the
    // on-board label (roceo3 is mlx5_0), a VF behind ARI (rocep175s0f0v6 is mlx5_3 at
    // af:01.0) and an NPAR partition (rocep59s1f10 is bnxt_re1 at 3b:01.2); a GUID name
    // for a VF, whose node GUID is 0, means nothing.
    {"sriov_ari_rdma_core_names", "sriov-ari",
     "rd.rdma.roce=roceo3/1:v2:106 rd.rdma.roce=rocep175s0f0v6/1:v1 "
     "rd.rdma.wait=rocep59s1f10/1 rd.rdma.roce=rocex0000000000000000:v2",
     nullptr},
};

}  // namespace rp::testing
