// RDMA netlink (NETLINK_RDMA), in process: what `rdma link add rxe0 type rxe netdev eth0`
// sends, without running the program. Wrapped here once, like route netlink in rtnl.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "provision/base/result.h"

namespace rp {

// A software RDMA device on an Ethernet interface.
struct SoftLinkRequest {
  std::string type;    // "rxe" (Soft-RoCE) | "siw" (Soft-iWARP)
  std::string name;    // the new RDMA device: rxe0
  std::string netdev;  // the interface it sits on: eth0
};

// The module that provides a link type ("rxe" -> "rdma_rxe").
std::string soft_link_module(const std::string& type);

// RDMA_NLDEV_CMD_NEWLINK with DEV_NAME, LINK_TYPE and NDEV_NAME; the kernel registers the
// device before it answers.
Status rdma_add_soft_link(const SoftLinkRequest& req);

// Whether NETLINK_RDMA can be opened at all (it cannot without ib_core).
Status rdma_netlink_available();

// The netdev of an RDMA port as RDMA netlink reports it (RDMA_NLDEV_ATTR_NDEV_NAME of
// RDMA_NLDEV_CMD_PORT_GET, nldev.c fill_port_info; what `rdma link show` prints): the one
// source for a Soft-iWARP port, which has no `parent` file and, before Linux 6.10, no
// netdev in its GID attributes.
struct RdmaPortNetdev {
  std::string device;
  unsigned port = 0;
  std::string netdev;  // "" when the port has none
};
// Every port of every RDMA device: a device dump (RDMA_NLDEV_CMD_GET), then a port dump
// per device (nldev_port_get_dumpit needs the device index).
Result<std::vector<RdmaPortNetdev>> rdma_port_netdevs();
// The pieces, for tests: a dump request, and the attributes of one reply message.
Result<std::vector<uint8_t>> rdma_port_dump_request(uint32_t dev_index, uint32_t seq);
std::optional<RdmaPortNetdev> rdma_port_reply(const uint8_t* msg, size_t len);

// The request rdma_add_soft_link() sends, with sequence number `seq` (tests inspect it).
Result<std::vector<uint8_t>> rdma_newlink_request(const SoftLinkRequest& req, uint32_t seq);

// How one reply datagram answers the request `seq`: ok, the refusal as
// rdma_add_soft_link() reports it, or EBADMSG when the datagram holds no answer.
Status rdma_newlink_answer(const SoftLinkRequest& req, const std::vector<uint8_t>& reply,
                           uint32_t seq);

// The error for a refusal with `errnum`: names the device, the type and the netdev, and
// says what the errno means for NEWLINK.
Error rdma_newlink_error(const SoftLinkRequest& req, int errnum, const std::string& kernel_msg);

// Renaming an RDMA device, as `rdma dev set <from> name <to>` does: RDMA_NLDEV_CMD_SET
// with the device's index and RDMA_NLDEV_ATTR_DEV_NAME (nldev_set_doit ->
// ib_device_rename: EEXIST when another device has the name; the same name is no change).
struct RdmaRenameRequest {
  std::string from, to;
};
// Whether the kernel takes `name` as an RDMA device's name (nldev_set_doit's limits).
Status rdma_rename_check(const std::string& name);
Status rdma_rename_device(const RdmaRenameRequest& req);
// The request rdma_rename_device() sends for the device of index `dev_index` (tests).
Result<std::vector<uint8_t>> rdma_rename_request(uint32_t dev_index, const RdmaRenameRequest& req,
                                                 uint32_t seq);
Error rdma_rename_error(const RdmaRenameRequest& req, int errnum, const std::string& kernel_msg);

}  // namespace rp
