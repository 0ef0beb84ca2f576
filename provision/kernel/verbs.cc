#include "provision/kernel/verbs.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <memory>

#include "provision/base/root.h"

namespace rp {

std::string verbs_device_name(const ibv_device* dev) {
  const Root live("/");
  return live.read_or(std::string("/sys/class/infiniband_verbs/") + dev->dev_name + "/ibdev",
                      dev->name);
}

std::vector<std::string> verbs_static_providers() {
  // <infiniband/verbs.h> declares the providers' registration records (struct
  // verbs_device_ops, opaque here) when RDMA_STATIC_PROVIDERS is set; the record's first
  // member is the provider's name. Referencing them is also what links them in.
  std::vector<std::string> out;
  for (const verbs_device_ops* p :
       {&verbs_provider_mlx4, &verbs_provider_mlx5, &verbs_provider_rxe, &verbs_provider_siw}) {
    out.emplace_back(*reinterpret_cast<const char* const*>(p));
  }
  return out;
}

unsigned ib_mtu_bytes(int mtu_enum) {
  return (mtu_enum >= IBV_MTU_256 && mtu_enum <= IBV_MTU_4096) ? 128u << mtu_enum : 0;
}

Result<std::vector<VerbsDevice>> verbs_list_devices() {
  int n = 0;
  // Naming ibv_get_device_list here pulls the statically linked providers
  // (RDMA_STATIC_PROVIDERS) into the binary.
  std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(ibv_get_device_list(&n),
                                                            ibv_free_device_list);
  if (!list) return make_error("libibverbs", "cannot list devices", errno);
  std::vector<VerbsDevice> out;
  for (int i = 0; i < n; ++i) {
    ibv_device* dev = list.get()[i];
    VerbsDevice d;
    d.name = verbs_device_name(dev);
    std::unique_ptr<ibv_context, int (*)(ibv_context*)> ctx(ibv_open_device(dev), ibv_close_device);
    if (!ctx) {
      out.push_back(std::move(d));
      continue;
    }
    ibv_device_attr attr{};
    if (ibv_query_device(ctx.get(), &attr) == 0) {
      d.fw_ver = attr.fw_ver;
      for (uint8_t p = 1; p <= attr.phys_port_cnt; ++p) {
        ibv_port_attr pa{};
        if (ibv_query_port(ctx.get(), p, &pa) != 0) continue;
        VerbsPort vp;
        vp.num = p;
        vp.state = pa.state;
        vp.active_mtu = ib_mtu_bytes(pa.active_mtu);
        vp.max_mtu = ib_mtu_bytes(pa.max_mtu);
        d.ports.push_back(vp);
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace rp
