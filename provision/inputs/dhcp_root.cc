#include "provision/inputs/dhcp_root.h"

#include "provision/base/strings.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

// One shell word: quotes removed, backslash escapes resolved (POSIX sh "Quoting").
std::optional<std::string> unquote(std::string_view w) {
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    if (c == '\'') {
      const size_t end = w.find('\'', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      out.append(w.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      for (++i; i < w.size() && w[i] != '"'; ++i) {
        // Inside double quotes a backslash escapes only $ ` " \ (and a newline).
        if (w[i] == '\\' && i + 1 < w.size() &&
            std::string_view("$`\"\\").find(w[i + 1]) != std::string_view::npos)
          ++i;
        out += w[i];
      }
      if (i >= w.size()) return std::nullopt;
    } else if (c == '\\') {
      if (++i < w.size()) out += w[i];
    } else if (c == '$' && i + 1 < w.size() && w[i + 1] == '\'') {
      return std::nullopt;  // bash's $'...' (control characters): not a root-path's
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> sourced_value(std::string_view text, std::string_view name) {
  std::optional<std::string> value;
  for (auto line : split(text, '\n')) {
    line = trim(line);
    if (line.size() <= name.size() || !starts_with(line, name) || line[name.size()] != '=')
      continue;
    value = unquote(line.substr(name.size() + 1));  // sourcing: the last assignment wins
  }
  return value;
}

DhcpRootServer dhcp_root_server(std::string_view dhcpopts) {
  DhcpRootServer r;
  const std::string path = sourced_value(dhcpopts, "new_root_path").value_or("");
  if (!path.empty()) {
    // parse-nfsroot.sh takes "SERVER:/path" and "/path" as nfs: (its LEGACY case).
    const bool nfs = starts_with(path, "nfs:") || starts_with(path, "nfs4:");
    const std::string root = nfs ? path : "nfs:" + path;
    const auto server = nfs_root_server_text(root);
    if (server && !server->empty()) {
      r.from = "new_root_path";
      r.address = IpAddress::parse(*server);
      if (!r.address) r.name = std::string(*server);
      return r;
    }
  }
  for (const char* key : {"new_next_server", "new_dhcp_server_identifier"}) {
    const std::string v = sourced_value(dhcpopts, key).value_or("");
    if (v.empty()) continue;
    r.from = key;
    r.address = IpAddress::parse(v);
    if (!r.address) r.name = v;
    return r;
  }
  return r;
}

}  // namespace rp
