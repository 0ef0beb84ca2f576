// FakeKernel: a FileOps over a fixture tree that behaves like the kernel beneath it where
// a plain directory cannot (mlx4 store handlers and card re-registration, the rdma_cm
// configfs, port state changes), plus scripted faults. The executors run unchanged on top.
//
// Time is counted in calls through this FileOps, not in milliseconds: "the card comes back
// 4 calls after the switch" gives the same run on a loaded build machine as on a laptop.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "provision/kernel/files.h"

namespace rp::testing {

class FakeKernel : public FileOps {
 public:
  static constexpr unsigned kAlways = ~0u;  // fail_writes: every write, for good
  static constexpr unsigned kNever = ~0u;   // mlx4_reregistration: nothing ever vanishes

  explicit FakeKernel(const std::string& root_dir);

  // FileOps: every call first advances the clock by one and runs what has come due.
  const Root& root() const override { return real_.root(); }
  Result<std::string> read(const std::string& path) override;
  Status write(const std::string& path, const std::string& value) override;
  Status make_dir(const std::string& path) override;
  Status remove_dir(const std::string& path) override;
  bool exists(const std::string& path) override;
  bool writable(const std::string& path) override;
  Status mount(const std::string& fstype, const std::string& path) override;
  unsigned changes() const override { return real_.changes(); }

  // --- Scripted faults at one kernel path.
  // The next `count` writes to `path` fail with `errnum` and change nothing.
  void fail_writes(const std::string& path, int errnum, unsigned count = kAlways);
  // The file becomes 0444-like: writable() is false and a write fails with EACCES.
  void make_read_only(const std::string& path);

  // --- mlx4 cards, by PCI address ("0000:81:00.0").
  // The HCA refuses `type` on `port` (EOPNOTSUPP), as for a port without that capability.
  void mlx4_unsupported(const std::string& bdf, unsigned port, const std::string& type);
  // A change keeps the card unregistered (RDMA devices, netdevs and their class links
  // gone) for `calls` further calls (default 4); 0 re-registers inside the write, as
  // current kernels do; kNever changes nothing but the file (a tree that never re-registers).
  void mlx4_reregistration(const std::string& bdf, unsigned calls);
  // While the card is unregistered, writes to its port files fail with `errnum`.
  void mlx4_refuse_while_reregistering(const std::string& bdf, int errnum);
  // After a change, the port file still shows the old value for `calls` further calls.
  void mlx4_slow_readback(const std::string& bdf, unsigned calls);
  // The card lacks MLX4_DEV_CAP_FLAG_DPDP (and port sensing): both ports must have one type.
  // As mlx4/main.c __set_port_type does, a write that would mix types is refused with
  // EOPNOTSUPP but stays staged (tmp_type / possible_type); a later write to the other port
  // that agrees applies both ports at once.
  void mlx4_same_type_only(const std::string& bdf);
  // The card starts re-registering now (the other port has just been switched).
  void mlx4_start_reregistration(const std::string& bdf);
  // The card re-registers right after the next accepted write to `path` (another writer
  // switched a port type at that moment), before the program's next call.
  void mlx4_reregister_after_write(const std::string& bdf, const std::string& path);

  // --- Devices and ports.
  // The PCI function disappears (hot-unplug, driver unbind) after `calls` further calls.
  void unplug_after(const std::string& bdf, unsigned calls);
  // The RDMA device is not registered now and appears after `calls` further calls.
  void hide_rdma_device(const std::string& ibdev, unsigned calls);
  // The port's state file reads `state` ("4: ACTIVE") after `calls` further calls.
  void set_port_state_after(const std::string& ibdev, unsigned port, const std::string& state,
                            unsigned calls);
  // The interface's carrier file reads `carrier` ("0"/"1") after `calls` calls
  // (net-sysfs.c carrier_show).
  void set_carrier_after(const std::string& ifname, const std::string& carrier, unsigned calls);
  // The interface is set up (what rtnetlink's IFF_UP does to it) after `calls` calls:
  // `flags` gains IFF_UP|IFF_RUNNING and `carrier` appears with `carrier` (net-sysfs.c
  // carrier_show is EINVAL, here absent, while the interface is down).
  void set_link_up_after(const std::string& ifname, const std::string& carrier, unsigned calls);

  // RoCE LAG (mlx5 lag/lag.c), after `calls` further calls: the interfaces of the PFs'
  // RDMA devices `pfs` (first PF first) become the slaves of a new bond `bond` (mode
  // `mode`, "802.3ad 4"), mlx5 unregisters the PFs' devices (mlx5_do_bond ->
  // mlx5_lag_remove_devices) and registers `lag` on the first PF (the IB device of PF0
  // alone; mlx5_ib main.c names it "mlx5_bond_%d") with one port whose interface is the
  // bond (roce_gid_mgmt.c is_ndev_for_default_gid_filter: a slave's default GIDs go to its
  // master), ACTIVE.
  void mlx5_form_lag(const std::vector<std::string>& pfs, const std::string& bond,
                     const std::string& mode, const std::string& lag, unsigned calls);

  // How a RoCE driver derives its port's state from the interface under it.
  enum class RoceModel {
    // mlx5 (hw/mlx5/main.c mlx5_query_port_roce) and mlx4 (hw/mlx4/main.c
    // eth_link_query_port, state_to_phys_state): "4: ACTIVE" / "5: LinkUp" only while the
    // netdev is running with carrier, else "1: DOWN" / "3: Disabled" (hns, ocrdma alike).
    kHardware,
    // Soft-RoCE, the same in 6.1 and 6.12 (sw/rxe/rxe_net.c rxe_notify): ACTIVE on
    // NETDEV_UP whatever the carrier, DOWN on NETDEV_DOWN, and on NETDEV_CHANGE ACTIVE iff
    // carrier (rxe_set_port_state); rxe_query_port returns the cached state: LinkUp when
    // ACTIVE, Polling while the netdev is up, else Disabled. (Measured on both kernels in
    // QEMU, veth peers set down and up.)
    kRxe,
    // Soft-iWARP on 6.1 (sw/siw/siw_main.c siw_netdev_event, siw_verbs.c siw_query_port):
    // a state cached at siw_newlink (ACTIVE iff running with carrier), then ACTIVE on
    // NETDEV_UP whatever the carrier and DOWN on NETDEV_DOWN; NETDEV_CHANGE is ignored, so
    // losing the carrier leaves it ACTIVE. LinkUp when ACTIVE, else Disabled.
    kSiw61,
    // Soft-iWARP on 6.12: no cached state; siw_query_port computes it on every query from
    // the netdev (ib_device_get_netdev): ACTIVE/LinkUp iff running with carrier, else
    // DOWN/Disabled, as hardware does.
    kSiw612,
  };
  // From now on the port's state and phys_state follow `ifname` as `model` says, checked
  // on every call.
  void roce_port_follows(const std::string& ibdev, unsigned port, const std::string& ifname,
                         RoceModel model);

  // --- What happened.
  struct WriteAttempt {
    std::string path, bytes;
    int errnum = 0;  // 0: accepted
  };
  const std::vector<WriteAttempt>& writes() const { return writes_; }
  unsigned writes_to(const std::string& path) const;
  // Accepted changes in order: "write <path> <bytes>", "mkdir <path>", "rmdir <path>",
  // "mount <fstype> <path>".
  const std::vector<std::string>& journal() const { return journal_; }
  unsigned calls() const { return calls_; }
  unsigned reregistrations(const std::string& bdf) const;
  bool reregistering(const std::string& bdf) const;

 private:
  struct Hidden {      // an entry moved aside while its device is unregistered
    std::string kind;  // "infiniband" | "net"
    std::string name;
    std::string class_link;  // target of /sys/class/<kind>/<name>
  };
  struct Card {
    unsigned rereg_calls = 4;
    int refuse_errnum = 0;
    unsigned slow_readback = 0;
    std::set<std::pair<unsigned, std::string>> unsupported;
    bool reregistering = false;
    unsigned reregistrations = 0;
    std::vector<Hidden> hidden;
    std::map<unsigned, std::pair<std::string, unsigned>> stale;  // port -> (shown, until)
    bool same_type_only = false;
    std::map<unsigned, std::string> staged;  // port -> refused type kept for the next write
  };
  struct CmPort {
    std::string mode;
    unsigned tos = 0;
  };

  struct Follower {  // a RoCE port whose state follows its interface (roce_port_follows)
    std::string ibdev, ifname;
    unsigned port = 1;
    RoceModel model = RoceModel::kHardware;
    bool was_up = false, had_carrier = false, active = false;
  };
  void follow_netdevs();

  void tick();
  void at(unsigned calls_from_now, std::function<void()> fn);
  // mlx4/main.c mlx4_request_modules: a card with an Ethernet port makes the kernel load
  // mlx4_en itself (request_module_nowait), with the options modprobe finds.
  void request_mlx4_en();
  std::string real(const std::string& kernel_path) const;
  // Writes a file behind the program's back (what the kernel shows), keeping its mode.
  void put(const std::string& kernel_path, const std::string& content);
  std::string device_dir(const std::string& bdf) const;  // real path of the PCI function
  std::string stash(const std::string& what) const;

  Status write_port_type(const std::string& bdf, unsigned port, const std::string& path,
                         const std::string& value);
  Status write_port_mtu(const std::string& bdf, unsigned port, const std::string& path,
                        const std::string& value);
  Status write_cm(const std::string& dev, unsigned port, const std::string& file,
                  const std::string& path, const std::string& value);
  Status accept(const std::string& path, const std::string& value, const std::string& shown);
  Status refuse(const std::string& path, const std::string& value, int errnum);

  void begin_reregistration(const std::string& bdf);
  void end_reregistration(const std::string& bdf);
  void fill_cm_dir(const std::string& dev);
  CmPort cm_port(const std::string& dev, unsigned port);
  std::set<std::string> gid_types(const std::string& dev, unsigned port);

  RealFileOps real_;
  std::string dir_;
  unsigned calls_ = 0;
  unsigned next_ifindex_ = 100;
  std::vector<std::pair<unsigned, std::function<void()>>> events_;
  std::map<std::string, std::pair<int, unsigned>> faults_;  // path -> (errnum, count)
  std::set<std::string> read_only_;
  std::map<std::string, Card> cards_;
  std::vector<Follower> followers_;
  std::map<std::string, std::string> reregister_after_write_;  // path -> bdf
  std::map<std::string, CmPort> cm_;  // "<dev>/<port>": the kernel's cma_device values
  std::vector<WriteAttempt> writes_;
  std::vector<std::string> journal_;
};

}  // namespace rp::testing
