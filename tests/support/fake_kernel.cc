#include "tests/support/fake_kernel.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "provision/base/strings.h"

namespace rp::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kPciDevices[] = "/sys/bus/pci/devices/";
constexpr char kRdmaCm[] = "/sys/kernel/config/rdma_cm";

// "/sys/bus/pci/devices/<bdf>/mlx4_port<N>" or ".../mlx4_port<N>_mtu".
struct Mlx4Path {
  std::string bdf;
  unsigned port = 0;
  bool mtu = false;
};

std::optional<Mlx4Path> parse_mlx4(const std::string& path) {
  if (!starts_with(path, kPciDevices)) return std::nullopt;
  const std::string rest = path.substr(std::strlen(kPciDevices));
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  Mlx4Path m;
  m.bdf = rest.substr(0, slash);
  std::string file = rest.substr(slash + 1);
  if (!starts_with(file, "mlx4_port")) return std::nullopt;
  file = file.substr(std::strlen("mlx4_port"));
  if (ends_with(file, "_mtu")) {
    m.mtu = true;
    file.resize(file.size() - 4);
  }
  auto n = parse_uint(file);
  if (!n || (*n != 1 && *n != 2)) return std::nullopt;
  m.port = static_cast<unsigned>(*n);
  return m;
}

// "/sys/kernel/config/rdma_cm/<dev>" (port 0) or ".../<dev>/ports/<n>/<file>".
struct CmPath {
  std::string dev;
  unsigned port = 0;
  std::string file;
};

std::optional<CmPath> parse_cm(const std::string& path) {
  const std::string prefix = std::string(kRdmaCm) + "/";
  if (!starts_with(path, prefix)) return std::nullopt;
  auto parts = split(std::string_view(path).substr(prefix.size()), '/');
  CmPath c;
  c.dev = std::string(parts[0]);
  if (parts.size() == 1) return c;
  if (parts.size() != 4 || parts[1] != "ports") return std::nullopt;
  auto n = parse_uint(parts[2]);
  if (!n) return std::nullopt;
  c.port = static_cast<unsigned>(*n);
  c.file = std::string(parts[3]);
  return c;
}

// The port type an mlx4_port value stands for: "auto (eth)" is sensed as eth.
std::string effective_type(const std::string& shown) {
  if (shown == "ib" || shown == "auto (ib)") return "ib";
  if (shown == "eth" || shown == "auto (eth)") return "eth";
  return "";
}

std::vector<std::string> entries(const std::string& real_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(real_dir, ec)) {
    out.push_back(e.path().filename().string());
  }
  return out;
}

}  // namespace

FakeKernel::FakeKernel(const std::string& root_dir) : real_(Root(root_dir)), dir_(root_dir) {
  while (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
}

// ---- clock

void FakeKernel::follow_netdevs() {
  for (auto& f : followers_) {
    const std::string net = "/sys/class/net/" + f.ifname + "/";
    const auto flags = real_.read(net + "flags");
    const bool up = flags && (std::stoul(*flags, nullptr, 16) & 0x1) != 0;
    const bool carrier = up && real_.read(net + "carrier").value_or("") == "1";
    if (f.model == RoceModel::kHardware || f.model == RoceModel::kSiw612) {
      f.active = up && carrier;
    } else if (up && !f.was_up) {
      f.active = true;  // NETDEV_UP: rxe_port_up / siw_netdev_event, no look at the carrier
    } else if (!up) {
      f.active = false;  // NETDEV_DOWN: rxe_port_down / siw_netdev_event
    } else if (carrier != f.had_carrier && f.model == RoceModel::kRxe) {
      f.active = carrier;  // NETDEV_CHANGE: rxe_set_port_state (siw 6.1 ignores it)
    }
    f.was_up = up;
    f.had_carrier = carrier;
    const std::string phys = f.active                           ? "5: LinkUp"
                             : up && f.model == RoceModel::kRxe ? "2: Polling"
                                                                : "3: Disabled";
    const std::string dir =
        "/sys/class/infiniband/" + f.ibdev + "/ports/" + std::to_string(f.port) + "/";
    const std::string state = f.active ? "4: ACTIVE" : "1: DOWN";
    if (real_.read(dir + "state").value_or("") != state) put(dir + "state", state + "\n");
    if (real_.read(dir + "phys_state").value_or("") != phys) put(dir + "phys_state", phys + "\n");
  }
}

void FakeKernel::tick() {
  ++calls_;
  for (;;) {
    auto due = events_.end();
    for (auto it = events_.begin(); it != events_.end(); ++it) {
      if (it->first <= calls_) {
        due = it;
        break;
      }
    }
    if (due == events_.end()) break;
    auto fn = std::move(due->second);
    events_.erase(due);
    fn();
  }
  follow_netdevs();
}

void FakeKernel::at(unsigned calls_from_now, std::function<void()> fn) {
  if (calls_from_now == kNever) return;
  if (calls_from_now == 0) {
    fn();
    return;
  }
  events_.emplace_back(calls_ + calls_from_now, std::move(fn));
}

std::string FakeKernel::real(const std::string& kernel_path) const { return dir_ + kernel_path; }

std::string FakeKernel::stash(const std::string& what) const {
  return dir_ + ".fake-kernel/" + what;
}

void FakeKernel::put(const std::string& kernel_path, const std::string& content) {
  const std::string p = real(kernel_path);
  std::error_code ec;
  const bool existed = fs::exists(p, ec);
  if (!existed) fs::create_directories(fs::path(p).parent_path(), ec);
  const auto perms = existed ? fs::status(p, ec).permissions() : fs::perms::none;
  if (existed) fs::permissions(p, fs::perms::owner_write, fs::perm_options::add, ec);
  {
    std::ofstream out(p, std::ios::trunc);
    out << content;
  }
  if (existed) fs::permissions(p, perms, fs::perm_options::replace, ec);
}

std::string FakeKernel::device_dir(const std::string& bdf) const {
  std::error_code ec;
  auto p = fs::canonical(real(kPciDevices + bdf), ec);
  return ec ? "" : p.string();
}

// ---- FileOps

Result<std::string> FakeKernel::read(const std::string& path) {
  tick();
  if (auto m = parse_mlx4(path); m && !m->mtu) {
    auto& stale = cards_[m->bdf].stale;
    auto it = stale.find(m->port);
    if (it != stale.end()) {
      if (calls_ < it->second.second && real_.exists(path)) return it->second.first;
      stale.erase(it);
    }
  }
  return real_.read(path);
}

Status FakeKernel::refuse(const std::string& path, const std::string& value, int errnum) {
  writes_.push_back({path, value, errnum});
  const std::string shown = quote(std::string(trim(value)));
  if (errnum == EACCES) return make_error(path, "cannot open for writing " + shown, errnum);
  return make_error(path, "writing " + shown + " failed", errnum);
}

Status FakeKernel::accept(const std::string& path, const std::string& value,
                          const std::string& shown) {
  Status st = real_.write(path, shown);
  writes_.push_back({path, value, st ? 0 : st.error().errnum});
  if (st) journal_.push_back("write " + path + " " + value);
  if (auto t = reregister_after_write_.find(path); st && t != reregister_after_write_.end()) {
    // mlx4/main.c mlx4_restart_one (a port type switched by another writer) unregisters
    // and registers the card's RDMA device; rdma_cm drops its cma_device and makes a new
    // one with the defaults (cma.c cma_remove_one, cma_add_one), which is what a configfs
    // group of that name shows from then on (cma_configfs.c: every show looks the device
    // up by name).
    const std::string bdf = t->second;
    reregister_after_write_.erase(t);
    at(1, [this, bdf] { begin_reregistration(bdf); });
  }
  return st;
}

Status FakeKernel::write(const std::string& path, const std::string& value) {
  tick();
  if (!real_.exists(path)) {
    // The real open fails (ENOENT): let it, so the message is the real one.
    Status st = real_.write(path, value);
    writes_.push_back({path, value, st ? 0 : st.error().errnum});
    return st;
  }
  if (read_only_.count(path) || !real_.writable(path)) return refuse(path, value, EACCES);
  if (auto f = faults_.find(path); f != faults_.end() && f->second.second > 0) {
    const int errnum = f->second.first;
    if (f->second.second != kAlways) --f->second.second;
    return refuse(path, value, errnum);
  }
  if (auto m = parse_mlx4(path)) {
    return m->mtu ? write_port_mtu(m->bdf, m->port, path, value)
                  : write_port_type(m->bdf, m->port, path, value);
  }
  if (auto c = parse_cm(path); c && c->port != 0) {
    return write_cm(c->dev, c->port, c->file, path, value);
  }
  return accept(path, value, value);
}

Status FakeKernel::make_dir(const std::string& path) {
  tick();
  auto cm = parse_cm(path);
  const bool device_group = cm && cm->port == 0;
  if (device_group && real_.exists(kRdmaCm) && !real_.exists(path) &&
      !real_.exists("/sys/class/infiniband/" + cm->dev)) {
    // rdma_cm looks the name up among the registered RDMA devices.
    return make_error(path, "cannot create directory", ENODEV);
  }
  Status st = real_.make_dir(path);
  if (!st) return st;
  journal_.push_back("mkdir " + path);
  if (device_group) fill_cm_dir(cm->dev);
  return st;
}

Status FakeKernel::remove_dir(const std::string& path) {
  tick();
  auto cm = parse_cm(path);
  if (cm && cm->port == 0 && real_.exists(path)) {
    // The ports/ groups are configfs default groups: they go with their parent.
    std::error_code ec;
    fs::remove_all(real(path + "/ports"), ec);
  }
  Status st = real_.remove_dir(path);
  if (st) journal_.push_back("rmdir " + path);
  return st;
}

bool FakeKernel::exists(const std::string& path) {
  tick();
  return real_.exists(path);
}

bool FakeKernel::writable(const std::string& path) {
  tick();
  return !read_only_.count(path) && real_.writable(path);
}

Status FakeKernel::mount(const std::string& fstype, const std::string& path) {
  tick();
  if (fstype == "configfs") {
    // sysfs always has the mount point when configfs is built in; the fixture trees have
    // no /sys/kernel at all.
    std::error_code ec;
    fs::create_directories(fs::path(real(path)).parent_path(), ec);
  }
  Status st = real_.mount(fstype, path);
  if (!st) return st;
  journal_.push_back("mount " + fstype + " " + path);
  if (fstype == "configfs") {
    // The rdma_cm module registers its configfs subsystem when it loads.
    // Held: split() returns views into it (a temporary would dangle in the loop).
    const std::string modules = real_.read("/proc/modules").value_or("");
    for (auto line : split(modules, '\n')) {
      if (starts_with(line, "rdma_cm ")) {
        std::error_code ec;
        fs::create_directories(real(path + "/rdma_cm"), ec);
      }
    }
    put("/proc/mounts", real_.read("/proc/mounts").value_or("") + "\nconfigfs " + path +
                            " configfs rw,nosuid,nodev,noexec,relatime 0 0\n");
  }
  return st;
}

// ---- mlx4_core store handlers

Status FakeKernel::write_port_type(const std::string& bdf, unsigned port, const std::string& path,
                                   const std::string& value) {
  Card& c = cards_[bdf];
  if (c.reregistering && c.refuse_errnum) return refuse(path, value, c.refuse_errnum);
  // The kernel compares with strcmp: the newline is part of the value.
  std::string type;
  if (value == "ib\n") {
    type = "ib";
  } else if (value == "eth\n") {
    type = "eth";
  } else if (value == "auto\n") {
    type = "auto";
  } else {
    return refuse(path, value, EINVAL);
  }
  if (c.unsupported.count({port, type})) return refuse(path, value, EOPNOTSUPP);
  const std::string old = real_.read(path).value_or("");
  if (c.same_type_only && type != "auto") {
    // __set_port_type: the other port's type is its staged one, else what it has now.
    const unsigned other = port == 1 ? 2 : 1;
    const std::string other_path = kPciDevices + bdf + "/mlx4_port" + std::to_string(other);
    std::string other_type = c.staged.count(other)
                                 ? c.staged[other]
                                 : effective_type(real_.read(other_path).value_or(""));
    if (!other_type.empty() && other_type != type) {
      c.staged[port] = type;
      return refuse(path, value, EOPNOTSUPP);
    }
    // Agreed: mlx4_change_port_types applies both ports.
    if (c.staged.count(other)) {
      put(other_path, c.staged[other] + "\n");
      c.staged.erase(other);
    }
    c.staged.erase(port);
  }
  std::string sensed = effective_type(old);
  if (sensed.empty()) sensed = "eth";
  const std::string shown = type == "auto" ? "auto (" + sensed + ")" : type;
  Status st = accept(path, value, shown + "\n");
  if (!st) return st;
  if (c.slow_readback) c.stale[port] = {old, calls_ + c.slow_readback};
  if (effective_type(shown) != effective_type(old)) begin_reregistration(bdf);
  return st;
}

Status FakeKernel::write_port_mtu(const std::string& bdf, unsigned port, const std::string& path,
                                  const std::string& value) {
  Card& c = cards_[bdf];
  if (c.reregistering && c.refuse_errnum) return refuse(path, value, c.refuse_errnum);
  const std::string type =
      real_.read(kPciDevices + bdf + "/mlx4_port" + std::to_string(port)).value_or("");
  // "port level mtu is only used for IB ports"
  if (effective_type(type) == "eth") return refuse(path, value, EINVAL);
  auto mtu = parse_uint(trim(value));
  if (!mtu || (*mtu != 256 && *mtu != 512 && *mtu != 1024 && *mtu != 2048 && *mtu != 4096)) {
    return refuse(path, value, EINVAL);
  }
  Status st = accept(path, value, std::to_string(*mtu) + "\n");
  if (st) begin_reregistration(bdf);
  return st;
}

void FakeKernel::begin_reregistration(const std::string& bdf) {
  Card& c = cards_[bdf];
  ++c.reregistrations;
  if (c.rereg_calls == kNever) return;
  if (!c.reregistering) {
    const std::string dev = device_dir(bdf);
    if (dev.empty()) return;
    std::error_code ec;
    for (const std::string kind : {"infiniband", "net"}) {
      for (const auto& name : entries(dev + "/" + kind)) {
        Hidden h{kind, name, ""};
        const std::string link = real("/sys/class/" + kind + "/" + name);
        if (fs::is_symlink(link, ec)) {
          h.class_link = fs::read_symlink(link, ec).string();
          fs::remove(link, ec);
        }
        fs::create_directories(stash(bdf + "/" + kind), ec);
        fs::rename(dev + "/" + kind + "/" + name, stash(bdf + "/" + kind + "/" + name), ec);
        c.hidden.push_back(h);
      }
    }
    c.reregistering = true;
  }
  at(c.rereg_calls, [this, bdf] { end_reregistration(bdf); });
}

void FakeKernel::end_reregistration(const std::string& bdf) {
  Card& c = cards_[bdf];
  if (!c.reregistering) return;
  c.reregistering = false;
  const std::string dev = device_dir(bdf);
  std::vector<Hidden> hidden;
  hidden.swap(c.hidden);
  if (dev.empty()) return;  // unplugged meanwhile: nothing comes back
  std::error_code ec;
  for (const auto& h : hidden) {
    fs::rename(stash(bdf + "/" + h.kind + "/" + h.name), dev + "/" + h.kind + "/" + h.name, ec);
    if (!h.class_link.empty()) {
      fs::create_symlink(h.class_link, real("/sys/class/" + h.kind + "/" + h.name), ec);
    }
    const std::string base = kPciDevices + bdf + "/" + h.kind + "/" + h.name;
    if (h.kind == "net") {
      // A new netdev: a new ifindex.
      put(base + "/ifindex", std::to_string(next_ifindex_++) + "\n");
      continue;
    }
    for (unsigned p = 1; p <= 2; ++p) {
      const std::string ll_file = base + "/ports/" + std::to_string(p) + "/link_layer";
      auto type = real_.read(kPciDevices + bdf + "/mlx4_port" + std::to_string(p));
      if (!type || !real_.exists(ll_file)) continue;
      const std::string t = effective_type(*type);
      if (!t.empty()) put(ll_file, t == "ib" ? "InfiniBand\n" : "Ethernet\n");
    }
    // The RDMA-CM defaults live in the cma_device, which was recreated.
    for (auto it = cm_.begin(); it != cm_.end();) {
      it = starts_with(it->first, h.name + "/") ? cm_.erase(it) : std::next(it);
    }
    if (real_.exists(std::string(kRdmaCm) + "/" + h.name)) fill_cm_dir(h.name);
  }
  // The card is probed again (mlx4_restart_one after a port-type change, main.c): with an
  // Ethernet port, mlx4_request_modules asks for mlx4_en.
  for (unsigned p = 1; p <= 2; ++p) {
    auto type = real_.read(kPciDevices + bdf + "/mlx4_port" + std::to_string(p));
    if (type && effective_type(*type) == "eth") {
      request_mlx4_en();
      break;
    }
  }
}

void FakeKernel::request_mlx4_en() {
  const std::string modules = real_.read("/proc/modules").value_or("");
  if (modules.find("mlx4_en ") == 0 || modules.find("\nmlx4_en ") != std::string::npos) return;
  // modprobe's options: every "options mlx4_en" line of the modprobe.d directories libkmod
  // reads (libkmod-config.c: /etc, /run, /usr/local/lib, /lib). Where two lines set one
  // parameter the last one read wins, as the kernel's parse_args keeps the last of a
  // repeated parameter; this reads the directories in turn rather than merging their files
  // by name as libkmod does, which is the same for the one file a test writes. The
  // module's own defaults otherwise: pfctx=0, pfcrx=0 (mlx4/en_main.c MLX4_EN_PARM_INT).
  std::map<std::string, std::string> params{{"pfctx", "0"}, {"pfcrx", "0"}};
  for (const char* dir :
       {"/lib/modprobe.d", "/usr/local/lib/modprobe.d", "/run/modprobe.d", "/etc/modprobe.d"}) {
    for (const auto& file : real_.root().list(dir)) {
      const std::string text = real_.read(std::string(dir) + "/" + file).value_or("");
      for (auto line : split(text, '\n')) {
        auto w = split_ws(line);
        if (w.size() < 3 || w[0] != "options" || w[1] != "mlx4_en") continue;
        for (size_t i = 2; i < w.size(); ++i) {
          auto eq = w[i].find('=');
          if (eq == std::string_view::npos) continue;
          const std::string key(w[i].substr(0, eq));
          // module_param(uint) shows the value in decimal.
          auto v = parse_uint(w[i].substr(eq + 1));
          if (params.count(key) && v) params[key] = std::to_string(*v);
        }
      }
    }
  }
  // (read() drops the file's last newline.)
  put("/proc/modules",
      modules + (modules.empty() ? "" : "\n") + "mlx4_en 147456 0 - Live 0x0000000000000000\n");
  for (const auto& [k, v] : params) put("/sys/module/mlx4_en/parameters/" + k, v + "\n");
}

// ---- rdma_cm configfs

std::set<std::string> FakeKernel::gid_types(const std::string& dev, unsigned port) {
  const std::string pdir = "/sys/class/infiniband/" + dev + "/ports/" + std::to_string(port);
  std::set<std::string> types;
  if (real_.read(pdir + "/link_layer").value_or("") == "Ethernet") {
    for (const auto& i : real_.root().list(pdir + "/gid_attrs/types")) {
      types.insert(real_.read(pdir + "/gid_attrs/types/" + i).value_or(""));
    }
  }
  // InfiniBand and iWARP ports have the IB GID type only, printed as "IB/RoCE v1".
  if (types.empty()) types.insert("IB/RoCE v1");
  return types;
}

FakeKernel::CmPort FakeKernel::cm_port(const std::string& dev, unsigned port) {
  auto it = cm_.find(dev + "/" + std::to_string(port));
  if (it != cm_.end()) return it->second;
  // The kernel prefers RoCE v2 where the port supports it.
  CmPort p;
  p.mode = gid_types(dev, port).count("RoCE v2") ? "RoCE v2" : "IB/RoCE v1";
  return p;
}

void FakeKernel::fill_cm_dir(const std::string& dev) {
  std::error_code ec;
  for (const auto& p : real_.root().list("/sys/class/infiniband/" + dev + "/ports")) {
    auto n = parse_uint(p);
    if (!n) continue;
    const CmPort v = cm_port(dev, static_cast<unsigned>(*n));
    const std::string d = std::string(kRdmaCm) + "/" + dev + "/ports/" + p;
    fs::create_directories(real(d), ec);
    put(d + "/default_roce_mode", v.mode + "\n");
    put(d + "/default_roce_tos", std::to_string(v.tos) + "\n");
  }
}

Status FakeKernel::write_cm(const std::string& dev, unsigned port, const std::string& file,
                            const std::string& path, const std::string& value) {
  std::string v = value;
  if (!v.empty() && v.back() == '\n') v.pop_back();
  CmPort cur = cm_port(dev, port);
  const std::string key = dev + "/" + std::to_string(port);
  if (file == "default_roce_mode") {
    if (v != "RoCE v2" && v != "IB/RoCE v1") return refuse(path, value, EINVAL);
    if (!gid_types(dev, port).count(v)) return refuse(path, value, EINVAL);
    cur.mode = v;
    Status st = accept(path, value, v + "\n");
    if (st) cm_[key] = cur;
    return st;
  }
  if (file == "default_roce_tos") {
    // kstrtou8(buf, 0, ...): decimal, 0x hex or 0 octal; too large is ERANGE.
    if (v.empty() || v[0] == '-' || v[0] == '+') return refuse(path, value, EINVAL);
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
    if (*end != '\0') return refuse(path, value, EINVAL);
    if (errno == ERANGE || n > 255) return refuse(path, value, ERANGE);
    cur.tos = static_cast<unsigned>(n);
    Status st = accept(path, value, std::to_string(n) + "\n");
    if (st) cm_[key] = cur;
    return st;
  }
  return accept(path, value, value);
}

// ---- scripting

void FakeKernel::fail_writes(const std::string& path, int errnum, unsigned count) {
  faults_[path] = {errnum, count};
}

void FakeKernel::make_read_only(const std::string& path) { read_only_.insert(path); }

void FakeKernel::mlx4_unsupported(const std::string& bdf, unsigned port, const std::string& type) {
  cards_[bdf].unsupported.insert({port, type});
}

void FakeKernel::mlx4_same_type_only(const std::string& bdf) { cards_[bdf].same_type_only = true; }

void FakeKernel::mlx4_reregistration(const std::string& bdf, unsigned calls) {
  cards_[bdf].rereg_calls = calls;
}

void FakeKernel::mlx4_refuse_while_reregistering(const std::string& bdf, int errnum) {
  cards_[bdf].refuse_errnum = errnum;
}

void FakeKernel::mlx4_slow_readback(const std::string& bdf, unsigned calls) {
  cards_[bdf].slow_readback = calls;
}

void FakeKernel::mlx4_start_reregistration(const std::string& bdf) { begin_reregistration(bdf); }

void FakeKernel::mlx4_reregister_after_write(const std::string& bdf, const std::string& path) {
  reregister_after_write_[path] = bdf;
}

void FakeKernel::unplug_after(const std::string& bdf, unsigned calls) {
  at(calls, [this, bdf] {
    const std::string dev = device_dir(bdf);
    if (dev.empty()) return;
    std::error_code ec;
    for (const std::string kind : {"infiniband", "net"}) {
      for (const auto& name : entries(dev + "/" + kind)) {
        fs::remove(real("/sys/class/" + kind + "/" + name), ec);
      }
    }
    fs::remove(real(kPciDevices + bdf), ec);
    for (const auto& drv : entries(real("/sys/bus/pci/drivers"))) {
      fs::remove(real("/sys/bus/pci/drivers/" + drv + "/" + bdf), ec);
    }
    fs::create_directories(stash("unplugged"), ec);
    fs::rename(dev, stash("unplugged/" + bdf), ec);
  });
}

void FakeKernel::hide_rdma_device(const std::string& ibdev, unsigned calls) {
  const std::string link = real("/sys/class/infiniband/" + ibdev);
  std::error_code ec;
  if (!fs::is_symlink(link, ec)) return;
  const auto target = fs::read_symlink(link, ec);
  const auto devdir = fs::canonical(link, ec);
  fs::remove(link, ec);
  fs::create_directories(stash("hidden"), ec);
  fs::rename(devdir, stash("hidden/" + ibdev), ec);
  at(calls, [this, ibdev, link, target, devdir] {
    std::error_code e;
    fs::rename(stash("hidden/" + ibdev), devdir, e);
    fs::create_symlink(target, link, e);
  });
}

void FakeKernel::mlx5_form_lag(const std::vector<std::string>& pfs, const std::string& bond,
                               const std::string& mode, const std::string& lag, unsigned calls) {
  at(calls, [this, pfs, bond, mode, lag] {
    std::error_code e;
    // The PFs' interfaces (each device's port 1), while their devices are still there.
    std::vector<std::string> slaves;
    for (const auto& d : pfs) {
      auto n = real_.read("/sys/class/infiniband/" + d + "/ports/1/gid_attrs/ndevs/0");
      slaves.push_back(n ? std::string(trim(*n)) : "");
    }
    // The bond (bond_sysfs.c: bonding/ files; core/dev.c: the slaves' master links).
    const std::string bdir = "/sys/devices/virtual/net/" + bond;
    fs::create_directories(real(bdir + "/bonding"), e);
    fs::create_symlink("../../devices/virtual/net/" + bond, real("/sys/class/net/" + bond), e);
    std::string list;
    for (const auto& sl : slaves) list += (list.empty() ? "" : " ") + sl;
    put(bdir + "/bonding/mode", mode + "\n");
    put(bdir + "/bonding/slaves", list + "\n");
    put(bdir + "/bonding/active_slave", "\n");
    put(bdir + "/type", "1\n");
    put(bdir + "/flags", "0x1403\n");
    put(bdir + "/carrier", "1\n");
    if (auto a = real_.read("/sys/class/net/" + slaves[0] + "/address")) put(bdir + "/address", *a);
    for (const auto& sl : slaves) {
      const auto dev = fs::canonical(real("/sys/class/net/" + sl), e);
      fs::create_symlink(fs::relative(real(bdir), dev, e), dev / "master", e);
    }
    // The PFs' RDMA devices go; the LAG device is PF0's, renamed, its port on the bond.
    const std::string pf0 = "/sys/class/infiniband/" + pfs[0];
    const auto pf0_target = fs::read_symlink(real(pf0), e);
    const auto pf0_dir = fs::canonical(real(pf0), e);
    for (size_t i = 1; i < pfs.size(); ++i) {
      const std::string link = real("/sys/class/infiniband/" + pfs[i]);
      const auto dir = fs::canonical(link, e);
      fs::remove(link, e);
      fs::remove_all(dir, e);
    }
    fs::remove(real(pf0), e);
    const auto lag_dir = pf0_dir.parent_path() / lag;
    fs::rename(pf0_dir, lag_dir, e);
    fs::create_symlink(pf0_target.parent_path() / lag, real("/sys/class/infiniband/" + lag), e);
    const std::string port = "/sys/class/infiniband/" + lag + "/ports/1";
    for (const auto& g : fs::directory_iterator(real(port + "/gid_attrs/ndevs"), e))
      put(port + "/gid_attrs/ndevs/" + g.path().filename().string(), bond + "\n");
    put(port + "/state", "4: ACTIVE\n");
    put(port + "/phys_state", "5: LinkUp\n");
    journal_.push_back("lag " + lag + " " + bond);
  });
}

void FakeKernel::set_port_state_after(const std::string& ibdev, unsigned port,
                                      const std::string& state, unsigned calls) {
  at(calls, [this, ibdev, port, state] {
    put("/sys/class/infiniband/" + ibdev + "/ports/" + std::to_string(port) + "/state",
        state + "\n");
  });
}

void FakeKernel::set_carrier_after(const std::string& ifname, const std::string& carrier,
                                   unsigned calls) {
  at(calls,
     [this, ifname, carrier] { put("/sys/class/net/" + ifname + "/carrier", carrier + "\n"); });
}

void FakeKernel::set_link_up_after(const std::string& ifname, const std::string& carrier,
                                   unsigned calls) {
  at(calls, [this, ifname, carrier] {
    const std::string net = "/sys/class/net/" + ifname + "/";
    const unsigned long flags = std::stoul(real_.read(net + "flags").value_or("0"), nullptr, 16);
    char text[32];
    std::snprintf(text, sizeof text, "0x%lx\n", flags | 0x1 | 0x40);  // IFF_UP, IFF_RUNNING
    put(net + "flags", text);
    put(net + "carrier", carrier + "\n");
    put(net + "operstate", std::string(carrier == "1" ? "up" : "down") + "\n");
  });
}

void FakeKernel::roce_port_follows(const std::string& ibdev, unsigned port,
                                   const std::string& ifname, RoceModel model) {
  Follower f;
  f.ibdev = ibdev;
  f.ifname = ifname;
  f.port = port;
  f.model = model;
  // The state the driver shows at registration: rxe_enable_driver -> rxe_set_port_state
  // (ACTIVE iff running with carrier), as the hardware drivers report it.
  const std::string net = "/sys/class/net/" + ifname + "/";
  const auto flags = real_.read(net + "flags");
  f.was_up = flags && (std::stoul(*flags, nullptr, 16) & 0x1) != 0;
  f.had_carrier = f.was_up && real_.read(net + "carrier").value_or("") == "1";
  f.active = f.was_up && f.had_carrier;
  followers_.push_back(f);
  follow_netdevs();
}

// ---- what happened

unsigned FakeKernel::writes_to(const std::string& path) const {
  unsigned n = 0;
  for (const auto& w : writes_) n += w.path == path;
  return n;
}

unsigned FakeKernel::reregistrations(const std::string& bdf) const {
  auto it = cards_.find(bdf);
  return it == cards_.end() ? 0 : it->second.reregistrations;
}

bool FakeKernel::reregistering(const std::string& bdf) const {
  auto it = cards_.find(bdf);
  return it != cards_.end() && it->second.reregistering;
}

}  // namespace rp::testing
