#include "provision/kernel/nvme_fabrics.h"

#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "provision/base/strings.h"

namespace rp {
namespace {

constexpr const char* kFabricsDev = "/dev/nvme-fabrics";
constexpr size_t kLogRecord = 1024;  // header and each entry (struct nvmf_disc_rsp_page_*)

std::string target_of(const NvmfConnect& c) {
  return c.transport + " " + c.traddr + ":" + c.trsvcid + " (" + c.nqn + ")";
}

// A fixed-size field: up to the first NUL, trailing spaces dropped (the specification pads
// ASCII fields with spaces; nvmet's are NUL-padded copies).
std::string field(const std::vector<uint8_t>& p, size_t at, size_t size) {
  std::string s(reinterpret_cast<const char*>(p.data() + at), size);
  if (auto nul = s.find('\0'); nul != std::string::npos) s.resize(nul);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

uint64_t le64(const std::vector<uint8_t>& p, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[at + i]) << (8 * i);
  return v;
}

// Get Log Page (admin opcode 0x02) of the Discovery log (0x70), `len` bytes from offset 0:
// NUMD (dwords - 1) split over CDW10 bits 31:16 and CDW11 bits 15:0; RAE (bit 15) keeps the
// asynchronous event pending while more is to be read (as libnvme nvme_discovery_log).
Result<std::vector<uint8_t>> get_log(int fd, size_t len, bool more, const std::string& dev) {
  std::vector<uint8_t> buf(len);
  nvme_passthru_cmd cmd{};
  cmd.opcode = 0x02;
  cmd.addr = reinterpret_cast<uintptr_t>(buf.data());
  cmd.data_len = static_cast<uint32_t>(len);
  const uint32_t numd = static_cast<uint32_t>(len / 4 - 1);
  cmd.cdw10 = 0x70 | (more ? 1u << 15 : 0) | ((numd & 0xffff) << 16);
  cmd.cdw11 = numd >> 16;
  const int rc = ::ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
  if (rc < 0) return make_error(dev, "cannot read the discovery log (Get Log Page)", errno);
  if (rc > 0) {
    char status[16];
    std::snprintf(status, sizeof status, "0x%x", static_cast<unsigned>(rc));
    return make_error(dev,
                      std::string("the discovery log: the controller answered status ") + status);
  }
  return buf;
}

}  // namespace

std::string nvmf_options(const NvmfConnect& c) {
  std::string o = "nqn=" + c.nqn + ",transport=" + c.transport + ",traddr=" + c.traddr +
                  ",trsvcid=" + c.trsvcid;
  if (!c.host_traddr.empty()) o += ",host_traddr=" + c.host_traddr;
  if (!c.hostnqn.empty() && !c.hostid.empty()) o += ",hostnqn=" + c.hostnqn + ",hostid=" + c.hostid;
  return o;
}

std::optional<NvmfController> parse_nvmf_reply(std::string_view reply) {
  NvmfController c;
  for (auto part : split(trim(reply), ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = part.substr(0, eq);
    const auto value = part.substr(eq + 1);
    int v = 0;
    if (value.empty() || value.size() > 9) continue;
    bool digits = true;
    for (char ch : value) digits &= ch >= '0' && ch <= '9';
    if (!digits) continue;
    for (char ch : value) v = v * 10 + (ch - '0');
    if (key == "instance") c.instance = v;
    if (key == "cntlid") c.cntlid = v;
  }
  if (c.instance < 0) return std::nullopt;
  return c;
}

std::string nvmf_errno_meaning(int errnum) {
  switch (errnum) {
    case ENOENT:
      return "no " + std::string(kFabricsDev) + ": nvme_fabrics is not loaded";
    case ECONNRESET:
      return "the RDMA connection failed (no route to the target, nothing listening on its "
             "port, or rejected: the kernel log names the step)";
    case EIO:
      return "the target refused the Fabrics connect (no such subsystem, or this host is not "
             "allowed to it)";
    case EALREADY:
      return "a controller to this target is connected already";
    case EINVAL:
      return "the kernel refused an option (a malformed address, no driver for the transport, "
             "or this host's NQN given before with another host ID)";
    case ETIMEDOUT:
      return "the target did not answer in time";
    default:
      return "";
  }
}

Result<NvmfController> nvmf_create_controller(const NvmfConnect& c) {
  const std::string options = nvmf_options(c);
  const int fd = ::open(kFabricsDev, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return make_error(target_of(c), "cannot connect: " + nvmf_errno_meaning(e), e);
  }
  // One write, one controller (nvmf_dev_write: a second write on the fd is EINVAL).
  const ssize_t n = ::write(fd, options.data(), options.size());
  if (n < 0) {
    const int e = errno;
    ::close(fd);
    std::string why = nvmf_errno_meaning(e);
    return make_error(target_of(c), "cannot connect" + (why.empty() ? "" : ": " + why), e);
  }
  // The answer from the start, as nvme-cli reads it (the write leaves the position at 0).
  char reply[128] = {};
  const ssize_t r = ::read(fd, reply, sizeof reply - 1);
  const int e = errno;
  ::close(fd);
  if (r <= 0) return make_error(target_of(c), "connected, but the controller's name is unread", e);
  auto ctrl = parse_nvmf_reply(std::string_view(reply, static_cast<size_t>(r)));
  if (!ctrl) {
    return make_error(target_of(c), "connected, but the kernel's answer " +
                                        quote(trim(std::string_view(reply))) +
                                        " names no "
                                        "controller");
  }
  return *ctrl;
}

Result<std::vector<NvmfLogEntry>> parse_discovery_log(const std::vector<uint8_t>& page) {
  if (page.size() < kLogRecord) return make_error("discovery log", "shorter than its header");
  const uint64_t numrec = le64(page, 8);
  if (numrec > (page.size() - kLogRecord) / kLogRecord) {
    return make_error("discovery log", "says " + std::to_string(numrec) + " records, but holds " +
                                           std::to_string((page.size() - kLogRecord) / kLogRecord));
  }
  std::vector<NvmfLogEntry> out;
  for (uint64_t i = 0; i < numrec; ++i) {
    const size_t at = kLogRecord * (i + 1);
    NvmfLogEntry e;
    e.trtype = page[at];
    e.adrfam = page[at + 1];
    e.subtype = page[at + 2];
    e.portid = static_cast<uint16_t>(page[at + 4] | page[at + 5] << 8);
    e.trsvcid = field(page, at + 32, 32);
    e.subnqn = field(page, at + 256, 256);
    e.traddr = field(page, at + 512, 256);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<NvmfLogEntry>> nvmf_discovery_log(int instance) {
  const std::string dev = "/dev/nvme" + std::to_string(instance);
  const int fd = ::open(dev.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(dev, "cannot open the discovery controller", errno);
  // The number of records, then the whole log; a generation counter that moved between
  // the two reads means the log changed: read again (at most 3 times, as libnvme does 10).
  Result<std::vector<NvmfLogEntry>> out = make_error(dev, "the discovery log kept changing");
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto header = get_log(fd, kLogRecord, true, dev);
    if (!header) {
      out = header.error();
      break;
    }
    const uint64_t numrec = le64(*header, 8);
    if (numrec > 256) {
      out = make_error(dev, "the discovery log says " + std::to_string(numrec) + " records");
      break;
    }
    auto page = get_log(fd, kLogRecord * (numrec + 1), false, dev);
    if (!page) {
      out = page.error();
      break;
    }
    if (le64(*page, 0) != le64(*header, 0)) continue;
    out = parse_discovery_log(*page);
    break;
  }
  ::close(fd);
  return out;
}

}  // namespace rp
