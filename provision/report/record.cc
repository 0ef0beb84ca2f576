#include "provision/report/record.h"

#include "provision/base/strings.h"

namespace rp {

std::string_view to_string(Phase p) { return p == Phase::kInitramfs ? "initramfs" : "real-root"; }

RunRecord start_record(const Root& root, std::time_t now) {
  RunRecord r;
  r.phase = root.exists("/etc/initrd-release") ? Phase::kInitramfs : Phase::kRealRoot;
  r.boot_id = std::string(trim(root.read_or("/proc/sys/kernel/random/boot_id", "")));
  r.started = now;
  return r;
}

std::string phase_state_path(Phase p, bool env) {
  return "/run/rdma-provision/" + std::string(to_string(p)) + (env ? "/state.env" : "/state.json");
}

std::string iso8601(std::time_t t) {
  if (t == 0) return "";
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return "";
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

std::map<std::string, std::string> read_env(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t eq = text.find('=', i);
    const size_t eol = text.find('\n', i);
    if (eq == std::string_view::npos || (eol != std::string_view::npos && eol < eq) ||
        text[i] == '#') {
      if (eol == std::string_view::npos) break;
      i = eol + 1;
      continue;
    }
    const std::string key(text.substr(i, eq - i));
    // The value: quoted runs ('...', which may hold newlines) joined by \' (a quote).
    std::string value;
    size_t j = eq + 1;
    while (j < text.size() && text[j] != '\n') {
      if (text[j] == '\'') {
        const size_t close = text.find('\'', j + 1);
        if (close == std::string_view::npos) return out;  // unterminated: not ours
        value.append(text.substr(j + 1, close - j - 1));
        j = close + 1;
      } else if (text[j] == '\\' && j + 1 < text.size()) {
        value += text[j + 1];
        j += 2;
      } else {
        value += text[j++];
      }
    }
    out[key] = std::move(value);
    i = j + 1;
  }
  return out;
}

bool RootMount::over_rdma() const {
  if (!nfs()) return false;
  for (auto opt : split(options, ','))
    if (opt == "proto=rdma" || opt == "proto=rdma6") return true;
  return false;
}

namespace {

// /proc/self/mounts escapes space, tab, newline and backslash as \ooo (fs/proc_namespace.c
// show_vfsmnt -> seq_escape with " \t\n\\").
std::string unescape_mount(std::string_view s) {
  auto octal = [](char c, char top) { return c >= '0' && c <= top; };
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && octal(s[i + 1], '3') && octal(s[i + 2], '7') &&
        octal(s[i + 3], '7')) {
      o += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      o += s[i];
    }
  }
  return o;
}

}  // namespace

std::optional<RootMount> root_mount(const Root& root) {
  auto text = root.read("/proc/self/mounts");
  if (!text) return std::nullopt;
  std::optional<RootMount> at_root, at_sysroot;
  for (auto line : split(*text, '\n')) {
    const std::vector<std::string_view> f = split_ws(line);
    if (f.size() < 4) continue;
    RootMount m{unescape_mount(f[0]), unescape_mount(f[1]), std::string(f[2]), std::string(f[3])};
    if (m.mount_point == "/") at_root = m;  // the last mount over "/" is the one seen
    if (m.mount_point == "/sysroot") at_sysroot = m;
  }
  // In an initramfs "/" is rootfs or tmpfs; the real root, once mounted, is /sysroot.
  if (at_sysroot && (!at_root || at_root->fstype == "rootfs" || at_root->fstype == "tmpfs"))
    return at_sysroot;
  return at_root;
}

}  // namespace rp
