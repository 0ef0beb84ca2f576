// Reading one attribute of a sysfs directory, shared by the sysfs discovery files
// (sysfs.cc: RDMA devices, PCI, modules; sysfs_net.cc: network interfaces). Internal.
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "provision/base/root.h"
#include "provision/base/strings.h"
#include "provision/inventory/inventory.h"

namespace rp {

inline std::optional<unsigned> read_uint(const DirHandle& dir, const char* name) {
  auto r = dir.read(name);
  if (!r) return std::nullopt;
  auto v = parse_uint(trim(*r));
  if (!v || *v > 0xffffffffu) return std::nullopt;
  return static_cast<unsigned>(*v);
}

// An attribute's text, "" when it is absent or unreadable; an unreadable one (it exists,
// but reading it failed: EACCES for a file only root may read, EIO from a driver) goes
// into Inventory::unreadable with its path and why.
inline std::string attr(const DirHandle& dir, std::string_view name, Inventory& inv) {
  auto r = dir.read(name);
  if (r) return std::move(r).value();
  const int e = r.error().errnum;
  if (e != ENOENT && e != ENOTDIR)
    inv.unreadable[dir.kernel_path() + "/" + std::string(name)] = std::strerror(e);
  return "";
}

}  // namespace rp
