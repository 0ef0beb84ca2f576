#include "provision/inputs/record.h"

#include <utility>

#include "provision/base/strings.h"

namespace rp {

void set_name(Config& cfg, const std::string& name, const HwKey& key, const Source& where,
              Diagnostics& d) {
  for (auto it = cfg.names.begin(); it != cfg.names.end();) {
    bool same_file = it->second.source.same_input(where);
    // Within one input a conflict is an error; across inputs the later one wins (the
    // command line over the files, a later file over an earlier one), said with both
    // sources, since what the earlier input set for the other name no longer applies.
    if (it->first == name && !(it->second.value == key)) {
      if (same_file) {
        d.error(where, "name " + quote(name) + " is already given to " + it->second.value.str() +
                           " at " + it->second.source);
        return;
      }
      d.warn(where, "name " + quote(name) + " goes to " + key.str() + " instead of " +
                        it->second.value.str() + ", which " + it->second.source.str() +
                        " gave it (the later input wins); that interface keeps its own name");
    } else if (it->first != name && it->second.value == key) {
      if (same_file) {
        d.error(where, key.str() + " already has the name " + quote(it->first) + " at " +
                           it->second.source);
        return;
      }
      d.warn(where, key.str() + " is named " + quote(name) + " instead of " + quote(it->first) +
                        ", which " + it->second.source.str() +
                        " gave it (the later input wins): what names " + quote(it->first) +
                        " there no longer reaches it; name it " + quote(name) + " there");
      it = cfg.names.erase(it);  // a later source renames the same device
      continue;
    }
    ++it;
  }
  cfg.names[name] = {key, where};
}

void add_blacklist(Config& cfg, std::string name, const Source& where) {
  for (const auto& b : cfg.blacklist)
    if (b.value == name) return;
  cfg.blacklist.push_back({std::move(name), where});
}

void set_pkey_child(Config& cfg, const std::string& parent, uint16_t pkey, const std::string& name,
                    const Source& where, Diagnostics& d) {
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
                   const Source& where, Diagnostics& d) {
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
