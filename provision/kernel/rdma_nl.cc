#include "provision/kernel/rdma_nl.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <cstring>

#include "provision/base/strings.h"
#include "provision/kernel/nl_io.h"

namespace rp {
namespace {

// The ABI we speak, checked against the kernel's uapi header (rdma-core's copy).
constexpr int kNetlinkRdma = 20;
constexpr uint16_t kClientNldev = 5;
constexpr uint16_t kCmdNewlink = 3;
constexpr uint16_t kCmdGet = 1;
constexpr uint16_t kCmdSet = 2;
constexpr uint16_t kCmdPortGet = 5;
constexpr uint16_t kAttrDevIndex = 1;   // u32
constexpr uint16_t kAttrDevName = 2;    // string
constexpr uint16_t kAttrPortIndex = 3;  // u32
constexpr uint16_t kAttrNdevName = 51;  // string
constexpr uint16_t kAttrLinkType = 65;  // string
constexpr uint16_t message_type(uint16_t client, uint16_t op) {
  return static_cast<uint16_t>((client << 10) + op);
}
static_assert(kNetlinkRdma == NETLINK_RDMA);
static_assert(kClientNldev == RDMA_NL_NLDEV);
static_assert(kCmdNewlink == RDMA_NLDEV_CMD_NEWLINK);
static_assert(kAttrDevName == RDMA_NLDEV_ATTR_DEV_NAME);
static_assert(kCmdGet == RDMA_NLDEV_CMD_GET);
static_assert(kCmdSet == RDMA_NLDEV_CMD_SET);
static_assert(kCmdPortGet == RDMA_NLDEV_CMD_PORT_GET);
static_assert(kAttrDevIndex == RDMA_NLDEV_ATTR_DEV_INDEX);
static_assert(kAttrPortIndex == RDMA_NLDEV_ATTR_PORT_INDEX);
static_assert(kAttrNdevName == RDMA_NLDEV_ATTR_NDEV_NAME);
static_assert(kAttrLinkType == RDMA_NLDEV_ATTR_LINK_TYPE);
static_assert(message_type(kClientNldev, kCmdNewlink) ==
              RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK));

// The kernel's limits (IB_DEVICE_NAME_MAX and IFNAMSIZ, both with the NUL): longer strings
// are cut short by nla_strscpy, so a too-long name would create a device with another name.
constexpr size_t kDeviceNameMax = 63;
constexpr size_t kIfNameMax = 15;

std::string describe(const SoftLinkRequest& r) {
  return r.type + " device " + quote(r.name) + " on " + r.netdev;
}

Status check(const SoftLinkRequest& r) {
  if (r.type != "rxe" && r.type != "siw") {
    return make_error(
        r.name,
        "cannot create " + describe(r) + ": link type " + quote(r.type) + " is not rxe or siw",
        EINVAL);
  }
  if (r.name.empty() || r.name.size() > kDeviceNameMax ||
      r.name.find_first_of("%/ \t\n") != std::string::npos) {
    return make_error(r.name,
                      "cannot create " + describe(r) + ": invalid RDMA device name (1 to " +
                          std::to_string(kDeviceNameMax) +
                          " characters, no '%', '/' or white space)",
                      EINVAL);
  }
  if (r.netdev.empty() || r.netdev.size() > kIfNameMax) {
    return make_error(r.name, "cannot create " + describe(r) + ": invalid interface name", EINVAL);
  }
  return ok_status();
}

Result<nl::MsgPtr> build(const SoftLinkRequest& r, uint32_t seq) {
  if (auto st = check(r); !st) return st.error();
  // NLDEV commands have no family header: the attributes follow nlmsghdr directly.
  nl::MsgBuilder b(message_type(kClientNldev, kCmdNewlink), NLM_F_REQUEST | NLM_F_ACK);
  b.seq(seq)
      .put_string(kAttrDevName, r.name)
      .put_string(kAttrLinkType, r.type)
      .put_string(kAttrNdevName, r.netdev);
  return b.finish("create " + describe(r));
}

}  // namespace

std::string soft_link_module(const std::string& type) {
  return type == "rxe" ? "rdma_rxe" : type == "siw" ? "siw" : type;
}

Error rdma_newlink_error(const SoftLinkRequest& r, int errnum, const std::string& kernel_msg) {
  std::string what = "cannot create " + describe(r);
  switch (errnum) {
    case EINVAL:
      // nldev_newlink: no link ops of that type even after request_module("rdma-link-<type>").
      what += ": the kernel has no " + r.type + " link type (module " + soft_link_module(r.type) +
              " not loaded or not built), or it refused the name";
      break;
    case EOPNOTSUPP:
    case ENOENT:
      what += ": no " + r.type + " support in this kernel (module " + soft_link_module(r.type) +
              " missing)";
      break;
    case ENODEV:
      what += ": no interface " + r.netdev + " in this network namespace";
      break;
    case EEXIST:
      what += ": " + r.netdev + " has a " + r.type + " device already";
      break;
    case ENFILE:
      what += ": another RDMA device is named " + r.name;
      break;
    case EPERM:
      what += ": not permitted (CAP_NET_ADMIN is needed, and " + r.type +
              " refuses VLAN and other stacked interfaces)";
      break;
    case EPROTONOSUPPORT:
      what += ": RDMA netlink is unavailable (ib_core is not loaded, or the kernel has no RDMA)";
      break;
    default:
      break;
  }
  if (!kernel_msg.empty()) what += "; kernel: " + kernel_msg;
  return make_error(r.name, what, errnum);
}

Result<std::vector<uint8_t>> rdma_newlink_request(const SoftLinkRequest& req, uint32_t seq) {
  auto msg = build(req, seq);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

Status rdma_newlink_answer(const SoftLinkRequest& req, const std::vector<uint8_t>& reply,
                           uint32_t seq) {
  auto a = nl::find_answer(reply.data(), reply.size(), seq);
  if (!a) return make_error(req.name, "no answer to request " + std::to_string(seq), EBADMSG);
  if (a->errnum != 0) return rdma_newlink_error(req, a->errnum, a->kernel_msg);
  return ok_status();
}

namespace {

// The attributes of one NLDEV reply: they follow nlmsghdr directly (no family header).
RdmaPortNetdev reply_attributes(const nlmsghdr* h, bool* has_index, uint32_t* dev_index) {
  RdmaPortNetdev r;
  int rem = static_cast<int>(h->nlmsg_len) - static_cast<int>(NLMSG_HDRLEN);
  auto* a = reinterpret_cast<nlattr*>(
      const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(h) + NLMSG_HDRLEN));
  for (; rem > 0 && nla_ok(a, rem); a = nla_next(a, &rem)) {
    const int type = nla_type(a);
    const auto payload = static_cast<size_t>(nla_len(a));
    const char* data = static_cast<const char*>(nla_data(a));
    auto text = [&] { return std::string(data, strnlen(data, payload)); };
    if (type == kAttrDevName) r.device = text();
    if (type == kAttrNdevName) r.netdev = text();
    if (type == kAttrPortIndex && payload >= 4) r.port = nla_get_u32(a);
    if (type == kAttrDevIndex && payload >= 4) {
      if (has_index) *has_index = true;
      if (dev_index) *dev_index = nla_get_u32(a);
    }
  }
  return r;
}

Result<nl::MsgPtr> dump_request(uint16_t cmd, std::optional<uint32_t> dev_index, uint32_t seq) {
  nl::MsgBuilder b(message_type(kClientNldev, cmd), NLM_F_REQUEST | NLM_F_DUMP);
  b.seq(seq);
  if (dev_index) b.put_u32(kAttrDevIndex, *dev_index);
  return b.finish(cmd == kCmdGet ? "list RDMA devices" : "list RDMA ports");
}

}  // namespace

Result<std::vector<uint8_t>> rdma_port_dump_request(uint32_t dev_index, uint32_t seq) {
  auto msg = dump_request(kCmdPortGet, dev_index, seq);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

std::optional<RdmaPortNetdev> rdma_port_reply(const uint8_t* msg, size_t len) {
  const auto* h = reinterpret_cast<const nlmsghdr*>(msg);
  if (len < NLMSG_HDRLEN || h->nlmsg_len > len ||
      h->nlmsg_type != message_type(kClientNldev, kCmdPortGet)) {
    return std::nullopt;
  }
  RdmaPortNetdev r = reply_attributes(h, nullptr, nullptr);
  if (r.device.empty() || r.port == 0) return std::nullopt;
  return r;
}

Result<std::vector<RdmaPortNetdev>> rdma_port_netdevs() {
  auto sock = nl::open_socket(kNetlinkRdma, "NETLINK_RDMA");
  if (!sock) return sock.error();
  std::vector<uint32_t> indexes;
  auto devices = dump_request(kCmdGet, std::nullopt, 0);
  if (!devices) return devices.error();
  nl::Answer a = nl::exchange(sock->get(), devices->get(), [&](const nlmsghdr* h) {
    bool has = false;
    uint32_t index = 0;
    reply_attributes(h, &has, &index);
    if (has) indexes.push_back(index);
  });
  if (a.errnum != 0) {
    return make_error("NETLINK_RDMA", nl::with_kernel_msg("cannot list RDMA devices", a), a.errnum);
  }
  std::vector<RdmaPortNetdev> out;
  for (uint32_t index : indexes) {
    auto ports = dump_request(kCmdPortGet, index, 0);
    if (!ports) return ports.error();
    a = nl::exchange(sock->get(), ports->get(), [&](const nlmsghdr* h) {
      if (auto r = rdma_port_reply(reinterpret_cast<const uint8_t*>(h), h->nlmsg_len)) {
        out.push_back(*r);
      }
    });
    if (a.errnum != 0) {
      return make_error("NETLINK_RDMA", nl::with_kernel_msg("cannot list RDMA ports", a), a.errnum);
    }
  }
  return out;
}

namespace {

std::string describe(const RdmaRenameRequest& r) {
  return "rename RDMA device " + r.from + " to " + quote(r.to);
}

}  // namespace

Status rdma_rename_check(const std::string& name) {
  // nldev_set_doit: nla_strscpy into IB_DEVICE_NAME_MAX (a longer name is cut short), an
  // empty one is EINVAL; ib_device_rename -> device_rename: a sysfs name has no '/'. No
  // '%' (an allocation template, "mlx5_%d") and no white space either, as for the names
  // of the soft devices (check() above).
  if (name.empty() || name.size() > kDeviceNameMax ||
      name.find_first_of("%/ \t\n") != std::string::npos) {
    return make_error(name,
                      "invalid RDMA device name " + quote(name) + " (1 to " +
                          std::to_string(kDeviceNameMax) +
                          " characters, no '%', '/' or white space)",
                      EINVAL);
  }
  return ok_status();
}

namespace {

Result<nl::MsgPtr> build_rename(uint32_t dev_index, const RdmaRenameRequest& req, uint32_t seq) {
  if (auto st = rdma_rename_check(req.to); !st) return st.error();
  // What `rdma dev set <dev> name <new>` sends (iproute2 rdma/dev.c dev_set_name): the
  // device by its index, the new name NUL-terminated.
  nl::MsgBuilder b(message_type(kClientNldev, kCmdSet), NLM_F_REQUEST | NLM_F_ACK);
  b.seq(seq).put_u32(kAttrDevIndex, dev_index).put_string(kAttrDevName, req.to);
  return b.finish(describe(req));
}

}  // namespace

Result<std::vector<uint8_t>> rdma_rename_request(uint32_t dev_index, const RdmaRenameRequest& req,
                                                 uint32_t seq) {
  auto msg = build_rename(dev_index, req, seq);
  if (!msg) return msg.error();
  return nl::bytes_of(msg->get());
}

Error rdma_rename_error(const RdmaRenameRequest& r, int errnum, const std::string& kernel_msg) {
  std::string what = "cannot " + describe(r);
  switch (errnum) {
    case EEXIST:  // ib_device_rename: __ib_device_get_by_name found one
      what += ": another RDMA device is named " + r.to;
      break;
    case ENODEV:
    case EINVAL:
      what +=
          ": no RDMA device " + r.from + " (gone, or renamed meanwhile), or the name was refused";
      break;
    case EPERM:
      what += ": not permitted (CAP_NET_ADMIN is needed)";
      break;
    case EPROTONOSUPPORT:
      what += ": RDMA netlink is unavailable (ib_core is not loaded, or the kernel has no RDMA)";
      break;
    default:
      break;
  }
  if (!kernel_msg.empty()) what += "; kernel: " + kernel_msg;
  return make_error(r.from, what, errnum);
}

Status rdma_rename_device(const RdmaRenameRequest& req) {
  if (auto st = rdma_rename_check(req.to); !st) return st;
  auto sock = nl::open_socket(kNetlinkRdma, "NETLINK_RDMA");
  if (!sock) return rdma_rename_error(req, sock.error().errnum, "");
  // The device's index: RDMA netlink names a device by it (a device dump, as
  // rdma_port_netdevs and iproute2's rd_dev_init_cb).
  std::optional<uint32_t> index;
  auto devices = dump_request(kCmdGet, std::nullopt, 0);
  if (!devices) return devices.error();
  nl::Answer a = nl::exchange(sock->get(), devices->get(), [&](const nlmsghdr* h) {
    bool has = false;
    uint32_t i = 0;
    if (reply_attributes(h, &has, &i).device == req.from && has) index = i;
  });
  if (a.errnum != 0) return rdma_rename_error(req, a.errnum, a.kernel_msg);
  if (!index) return rdma_rename_error(req, ENODEV, "");
  auto msg = build_rename(*index, req, 0);
  if (!msg) return msg.error();
  a = nl::exchange(sock->get(), msg->get());
  if (a.errnum != 0) return rdma_rename_error(req, a.errnum, a.kernel_msg);
  return ok_status();
}

Status rdma_netlink_available() {
  auto sock = nl::open_socket(kNetlinkRdma, "NETLINK_RDMA");
  if (!sock) return sock.error();
  return ok_status();
}

Status rdma_add_soft_link(const SoftLinkRequest& req) {
  auto msg = build(req, 0);  // 0: the socket numbers it
  if (!msg) return msg.error();
  auto sock = nl::open_socket(kNetlinkRdma, "NETLINK_RDMA");
  if (!sock) return rdma_newlink_error(req, sock.error().errnum, "");
  nl::Answer a = nl::exchange(sock->get(), msg->get());
  if (a.errnum != 0) return rdma_newlink_error(req, a.errnum, a.kernel_msg);
  return ok_status();
}

}  // namespace rp
