#include "provision/inputs/record.h"

#include <utility>

#include "provision/base/strings.h"

namespace rp {

std::string source_file(const std::string& where) {
  if (starts_with(where, "cmdline")) return "cmdline";
  auto colon = where.rfind(':');
  return colon == std::string::npos ? where : where.substr(0, colon);
}

void set_name(Config& cfg, const std::string& name, const HwKey& key, const std::string& where,
              Diagnostics& d) {
  const std::string file = source_file(where);
  for (auto it = cfg.names.begin(); it != cfg.names.end();) {
    bool same_file = source_file(it->second.source) == file;
    if (it->first == name && !(it->second.value == key)) {
      if (same_file) {
        d.error(where, "name " + quote(name) + " is already given to " + it->second.value.str() +
                           " at " + it->second.source);
        return;
      }
    } else if (it->first != name && it->second.value == key) {
      if (same_file) {
        d.error(where, key.str() + " already has the name " + quote(it->first) + " at " +
                           it->second.source);
        return;
      }
      it = cfg.names.erase(it);  // a later source renames the same device
      continue;
    }
    ++it;
  }
  cfg.names[name] = {key, where};
}

void add_blacklist(Config& cfg, std::string name, const std::string& where) {
  for (const auto& b : cfg.blacklist)
    if (b.value == name) return;
  cfg.blacklist.push_back({std::move(name), where});
}

void set_pkey_child(Config& cfg, const std::string& parent, uint16_t pkey, const std::string& name,
                    const std::string& where, Diagnostics& d) {
  const std::pair<std::string, uint16_t> id(parent, pkey);
  if (!name.empty()) {
    for (const auto& [other, child] : cfg.pkeys) {
      if (other != id && child.name == name) {
        d.error(where, "child name " + quote(name) + " is already used for " + child.parent +
                           " P_Key 0x" + hex(child.pkey, 4) + " at " + child.source);
        return;
      }
    }
  }
  auto& c = cfg.pkeys[id];
  c.parent = parent;
  c.pkey = pkey;
  if (!name.empty()) c.name = name;
  c.source = where;
}

void set_soft_link(Config& cfg, const std::string& netdev, SoftKind kind, const std::string& name,
                   const std::string& where, Diagnostics& d) {
  if (!name.empty()) {
    for (const auto& [other, link] : cfg.soft_links) {
      if (other != netdev && link.name == name) {
        d.error(where, "RDMA device name " + quote(name) + " is already asked for " + other +
                           " at " + link.source);
        return;
      }
    }
  }
  auto& link = cfg.soft_links[netdev];
  link.kind = kind;
  if (!name.empty()) link.name = name;
  link.source = where;
}

}  // namespace rp
