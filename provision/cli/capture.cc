// capture --output FILE: what this program reads of a machine, as a tar archive that
// unpacks into a tree --root reads back the same (a bug report's attachment, a test's
// fixture). Read-only and bounded. The paths are those discovery and the inputs actually
// look at (Root::record_reads), read again and bundled with the links and directories
// above them, so the tree answers every question the program asked, and nothing else.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <map>

#include "provision/base/strings.h"
#include "provision/base/tar.h"
#include "provision/cli/commands.h"
#include "provision/resolve/node_table.h"
#include "provision/version.h"

namespace rp {
namespace {

constexpr size_t kMaxFile = size_t{1} << 20;    // a sysfs attribute is one page
constexpr size_t kMaxTotal = size_t{32} << 20;  // the whole bundle
constexpr int kMaxLinkHops = 16;

// Never bundled, though read: the command line may carry secrets (passwords in ip=,
// iSCSI or LUKS parameters); give it to --cmdline-string when it matters.
bool withheld(const std::string& p) { return p == "/proc/cmdline"; }

class Bundle {
 public:
  explicit Bundle(const Root& root) : root_(root) {}

  // The entry at kernel path `p`, every directory and link on the way to it included.
  void add_path(const std::string& p, bool with_content, int hops = 0) {
    if (hops > kMaxLinkHops || withheld(p)) return;
    const auto parts = split(p, '/');
    std::string cur;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string comp(parts[i]);
      if (comp.empty() || comp == ".") continue;
      if (comp == "..") {
        cur = cur.substr(0, cur.rfind('/') == std::string::npos ? 0 : cur.rfind('/'));
        continue;
      }
      cur += "/" + comp;
      struct stat st;
      if (::lstat(root_.path(cur).c_str(), &st) != 0) return;  // absent: nothing to show
      if (S_ISLNK(st.st_mode)) {
        char buf[PATH_MAX];
        ssize_t n = ::readlink(root_.path(cur).c_str(), buf, sizeof buf - 1);
        if (n <= 0) return;
        const std::string target(buf, static_cast<size_t>(n));
        put({TarEntry::Kind::kLink, cur.substr(1), 0777, target});
        std::string next =
            target.front() == '/' ? target : cur.substr(0, cur.rfind('/')) + "/" + target;
        for (size_t j = i + 1; j < parts.size(); ++j) next += "/" + std::string(parts[j]);
        return add_path(next, with_content, hops + 1);
      }
      if (S_ISDIR(st.st_mode)) {
        put({TarEntry::Kind::kDir, cur.substr(1), st.st_mode & 07777u, {}});
        continue;
      }
      if (S_ISREG(st.st_mode) && i + 1 == parts.size() && with_content) add_file(cur, st);
      return;  // a device node, a FIFO, a socket: not bundled
    }
  }

  // A directory the program listed: its entries as they are (files with their contents).
  void add_listing(const std::string& dir) {
    add_path(dir, true);
    for (const auto& name : root_.list(dir)) add_path(dir + "/" + name, true);
  }

  void note(std::string line) { notes_.push_back(std::move(line)); }
  size_t files() const { return files_; }

  Result<std::string> archive() const {
    std::vector<TarEntry> entries;
    std::string manifest = "rdma-provision " RDMA_PROVISION_VERSION
                           " capture: what rdma-provision reads of this machine, values only.\n"
                           "Unpack into a directory and read it back: "
                           "rdma-provision status --root DIR\n";
    for (const auto& n : notes_) manifest += n + "\n";
    entries.push_back({TarEntry::Kind::kFile, "rdma-provision-capture.txt", 0644, manifest});
    for (const auto& [path, e] : entries_) entries.push_back(e);
    return tar_archive(entries);
  }

 private:
  void put(TarEntry e) {
    auto it = entries_.find(e.path);
    if (it == entries_.end()) {
      entries_.emplace(e.path, std::move(e));
    } else if (it->second.kind == TarEntry::Kind::kFile && e.kind == TarEntry::Kind::kFile) {
      it->second = std::move(e);
    }
  }

  void add_file(const std::string& p, const struct stat& st) {
    if (entries_.count(p.substr(1)) && entries_.at(p.substr(1)).kind == TarEntry::Kind::kFile)
      return;
    std::string text;
    int fd = ::open(root_.path(p).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      note("unreadable: " + p + " (" + errno_text(errno) + ")");
    } else {
      char buf[4096];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() <= kMaxFile)
        text.append(buf, static_cast<size_t>(n));
      if (n < 0) note("unreadable: " + p + " (" + errno_text(errno) + ")");
      ::close(fd);
    }
    if (text.size() > kMaxFile || total_ + text.size() > kMaxTotal) {
      note("left out (too large): " + p);
      return;
    }
    total_ += text.size();
    ++files_;
    put({TarEntry::Kind::kFile, p.substr(1), st.st_mode & 07777u, std::move(text)});
  }

  const Root& root_;
  std::map<std::string, TarEntry> entries_;
  std::vector<std::string> notes_;
  size_t total_ = 0;
  size_t files_ = 0;
};

}  // namespace

int cmd_capture(const Options& o) {
  if (o.output.empty()) {
    std::fprintf(stderr, "rdma-provision: capture: --output FILE is needed\n");
    return kExitUsage;
  }
  Root root = o.root == "/" ? Root::live_files() : Root(o.root);
  if (!root_usable(root, o, "capture")) return kExitUsage;
  // What status, check and plan read: discovery in full, the inputs, the node table.
  ReadLog log;
  Root::record_reads(&log);
  Inventory inv = discover(root, Detail::kFull);
  Inputs in = load_inputs(root, o.inputs);
  in.config = resolve_node_table(inv, in.config);
  Root::record_reads(nullptr);

  Bundle b(root);
  if (log.paths.count("/proc/cmdline")) b.note("withheld: /proc/cmdline (may carry secrets)");
  for (const auto& p : log.paths) b.add_path(p, true);
  for (const auto& d : log.listed) b.add_listing(d);
  auto tar = b.archive();
  if (!tar) {
    std::fprintf(stderr, "rdma-provision: capture: %s\n", tar.error().str().c_str());
    return 1;
  }
  std::string err;
  if (!write_own_file(Root(""), o.output, tar.value(), err)) {
    std::fprintf(stderr, "rdma-provision: capture: %s\n", err.c_str());
    return 1;
  }
  std::fprintf(stderr, "rdma-provision: capture: %zu files, %zu bytes, in %s\n", b.files(),
               tar.value().size(), o.output.c_str());
  return kExitOk;
}

}  // namespace rp
