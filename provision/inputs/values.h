// The one parser of each value an administrator writes, shared by every input reader (the
// kernel command line, the native config, rdma-core's files), so a value is checked and
// worded the same way wherever it is written. Each parser reports to `d` at `where`
// ("file:line" or "cmdline: <token>") and returns nullopt on a bad value; no reader words
// a message about a value itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "provision/base/types.h"
#include "provision/config/config.h"

namespace rp {

// ---- Words -------------------------------------------------------------------------------

// 1/0, yes/no, on/off, true/false, in any case.
std::optional<bool> parse_bool(std::string_view s, const Source& where, Diagnostics& d);
// mlx4 port type: ib, eth, auto.
std::optional<PortType> parse_port_type(std::string_view s, const Source& where, Diagnostics& d);
// datagram, connected.
std::optional<IpoibMode> parse_ipoib_mode(std::string_view s, const Source& where, Diagnostics& d);
// v1, v2.
std::optional<RoceMode> parse_roce_mode(std::string_view s, const Source& where, Diagnostics& d);

// ---- Hardware ----------------------------------------------------------------------------

// DDDD:BB:DD.F (the domain may be left out).
std::optional<PciAddress> parse_pci_address(std::string_view s, const Source& where,
                                            Diagnostics& d);
// What a persistent name matches on (config.h HwKey): a port GUID (three spellings), a
// 6-byte MAC, pci-<bdf>[/<port>] or <ibdev>/<port>.
std::optional<HwKey> parse_hw_key(std::string_view s, const Source& where, Diagnostics& d);
// An RDMA port number, 1..255.
std::optional<unsigned> parse_port_number(std::string_view s, const Source& where, Diagnostics& d);

// ---- Names -------------------------------------------------------------------------------

// A kernel module name, returned normalised ('-' as '_', the way modprobe compares them).
std::optional<std::string> parse_module_name(std::string_view s, const Source& where,
                                             Diagnostics& d);
// An interface name as the kernel accepts it: for names that already exist (a P_Key
// parent, the netdev under a Soft-RoCE link), where ib<N>/eth<N> are fine.
std::optional<std::string> parse_ifname(std::string_view s, const Source& where, Diagnostics& d);
// Whether `name` is of the kernel's own ib<N> / eth<N> form, which the next unrenamed
// device gets by default.
bool is_kernel_own_name(std::string_view name);
// Why udev would not give an interface this name (systemd's ifname_valid_full, which
// udev's NAME= and systemd's Name= apply: "all" and "default", digits only, bytes outside
// printable ASCII, spaces, ':', '/', '%', empty, over 15 bytes, "." and ".."), or "" when
// it would.
std::string udev_refuses_ifname(std::string_view name);
// A name we give to an interface: parse_ifname(), one udev gives (udev_refuses_ifname), and
// not the kernel's own ib<N>/eth<N> (they collide with unrenamed devices).
std::optional<std::string> parse_new_ifname(std::string_view s, const Source& where,
                                            Diagnostics& d);
// An RDMA device name (mlx5_0, rxe0).
std::optional<std::string> parse_rdma_name(std::string_view s, const Source& where, Diagnostics& d);

// ---- Numbers -----------------------------------------------------------------------------

std::optional<unsigned> parse_timeout(std::string_view s, const Source& where, Diagnostics& d);
std::optional<unsigned> parse_netdev_mtu(std::string_view s, const Source& where, Diagnostics& d);
std::optional<unsigned> parse_ib_mtu(std::string_view s, const Source& where, Diagnostics& d);
std::optional<unsigned> parse_tos(std::string_view s, const Source& where, Diagnostics& d);
// Always hexadecimal, "0x" or not.
std::optional<uint16_t> parse_pkey(std::string_view s, const Source& where, Diagnostics& d);
// mlx4_en's pfctx / pfcrx priority bitmask, read the way the kernel reads it.
enum class PfcDirection { kTx, kRx };
std::string_view pfc_param(PfcDirection dir);  // "pfctx" | "pfcrx"
std::optional<unsigned> parse_pfc_mask(std::string_view s, PfcDirection dir, const Source& where,
                                       Diagnostics& d);

// ---- DCB (rd.rdma.dcb, [dcb <ifname>]) ---------------------------------------------------
// Lists are separated by spaces (the native config) or '+' (the command line, which has
// no spaces in a value); pairs are written as iproute2's `dcb` writes them, "26:3".

// pcp, dscp.
std::optional<DcbTrust> parse_dcb_trust(std::string_view s, const Source& where, Diagnostics& d);
// Priorities 0..7 with PFC ("3", "3 4", "3+4", "none"): the pfc_en bitmask.
std::optional<uint8_t> parse_dcb_priorities(std::string_view s, const Source& where,
                                            Diagnostics& d);
// ETS bandwidth per traffic class ("0:50 3:50"): percents summing to 100, the classes not
// named 0 (mlx5 en_dcbnl.c mlx5e_dbcnl_validate_ets refuses any other sum).
std::optional<std::array<uint8_t, 8>> parse_dcb_tc_bw(std::string_view s, const Source& where,
                                                      Diagnostics& d);
// Priority to traffic class ("3:3 4:3"), each 0..7.
std::optional<std::map<uint8_t, uint8_t>> parse_dcb_prio_tc(std::string_view s, const Source& where,
                                                            Diagnostics& d);
// DSCP to priority ("26:3 46:5"): DSCP 0..63, priority 0..7.
std::optional<std::map<uint8_t, uint8_t>> parse_dcb_dscp_prio(std::string_view s,
                                                              const Source& where, Diagnostics& d);

// One key of a DCB setting into `s` (trust, pfc, tc_bw, prio_tc, dscp_prio: the native
// section's keys and the command line's); an unknown key is an error naming the known.
void set_dcb_key(DcbSetting& s, std::string_view key, std::string_view value, const Source& where,
                 Diagnostics& d);

// ---- Expected link (expect_values.cc) ------------------------------------------------------

// The keys of an expected link (rd.rdma.expect, [expect <device>[/<port>]]).
inline constexpr std::string_view kExpectKeys[] = {"rate", "width", "link_layer", "phys_state",
                                                   "sm",   "fw",    "pcie_speed", "pcie_width"};
// One key of an expected link into `s`; an unknown key is an error naming the known.
void set_expect_key(ExpectSetting& s, std::string_view key, std::string_view value,
                    const Source& where, Diagnostics& d);

// ---- Addresses and lists -----------------------------------------------------------------

std::optional<IpAddress> parse_ip_address(std::string_view s, const Source& where, Diagnostics& d);
// BOOTIF= (pxelinux's "<htype>-<bytes>", '-' or ':' between bytes, any case), as what it
// can name: htype 1 and 6 bytes, or 6 bytes alone (dracut's fix_bootif keeps the last 6):
// a MAC, which on an IPoIB port is iPXE's Ethernet-compatible address of it (ipoib.c
// ipoib_init_addr: GUID bytes 0-2 and 5-7); htype 32 (ARPHRD_INFINIBAND) and 8 bytes, or
// 8 alone: a port GUID (gPXE's IPoIB chaddr before 2012); a 20-byte IPoIB address, with or
// without htype 32: its GUID (the last 8 bytes, the only stable ones). nullopt otherwise.
std::optional<BootContext::BootIf> parse_bootif(std::string_view s);
// The fixed address of a DHCP server's host entry (node table lease=): IPv4 (DHCPv4 hands
// out only those), neither 0.0.0.0 nor a multicast or broadcast address.
std::optional<IpAddress> parse_dhcp_address(std::string_view s, const Source& where,
                                            Diagnostics& d);
// A host name (node table host=) as RFC 1123 section 2.1 has them, which every DHCP server
// takes: labels of letters, digits and '-', 1..63 bytes, neither starting nor ending with
// '-', dot-separated, 253 bytes at most.
std::optional<std::string> parse_hostname(std::string_view s, const Source& where, Diagnostics& d);
// "10.0.0.5/24", "fd00::5/64": a length is required.
// An rdma_cm endpoint: "ADDR", "ADDR:PORT", "[V6]", "[V6]:PORT" (an IPv6 address with a
// port needs brackets); the port 1..65535. nullopt when it is none of these.
struct Endpoint {
  IpAddress address;
  std::optional<uint16_t> port;
};
std::optional<Endpoint> parse_endpoint(std::string_view s);
// rd.rdma.verify / [general] verify: "0"|"off"|"no", "ports", "peer", "peer:ADDR",
// "peer:ADDR:PORT", "peer:[V6]:PORT".
std::optional<VerifySetting> parse_verify(std::string_view s, const Source& where, Diagnostics& d);
// The NFS server of dracut's root=/netroot= NFS forms (modules.d/95nfs/nfs-lib.sh nfs_to_var:
// nfs:SERVER:PATH[:OPTIONS], nfs4:..., SERVER an IPv4 address or [IPv6]); nullopt for any
// other root (a block device, dhcp, a server given by name: the address is what we need).
std::optional<IpAddress> nfs_root_server(std::string_view root);
// The server part as written (an address or a host name; "" when the root names none, as
// nfs:/path, which leaves it to DHCP); nullopt when `root` is no NFS form.
std::optional<std::string_view> nfs_root_server_text(std::string_view root);
std::optional<IpPrefix> parse_prefix(std::string_view s, const Source& where, Diagnostics& d);
// "default via 10.0.0.1" or "10.2.0.0/16 via 10.0.0.254".
std::optional<RouteSetting> parse_route(std::string_view s, const Source& where, Diagnostics& d);
// An RDMA device: "<ibdev>", "pci-<PCI address>", "guid-<node GUID>" or
// "netdev-<ifname>" (config.h RdmaSelector); "*" too when `star_ok`.
std::optional<RdmaSelector> parse_rdma_selector(std::string_view s, bool star_ok,
                                                const Source& where, Diagnostics& d);
// "<device|*>[/<port>]" -> (device, port or 0 for every port); a netdev- selector names
// its port itself.
std::optional<std::pair<RdmaSelector, unsigned>> parse_roce_target(std::string_view s,
                                                                   const Source& where,
                                                                   Diagnostics& d);
// "all", "none", "<device>/<port>", "netdev-<ifname>" or an ifname, comma separated;
// appended to cfg.wait.
void parse_wait_list(std::string_view s, const Source& where, Config& cfg, Diagnostics& d);

}  // namespace rp
