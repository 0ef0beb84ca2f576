// Link test for @rdma_core//:ibverbs (libibverbs + mlx4/mlx5/rxe/siw providers, static) and
// @libnl//:nl-3/:nl-route-3. Needs no RDMA hardware: on a machine without RDMA devices,
// ibv_get_device_list() yields an empty list or fails with ENOSYS/ENODEV. The netlink part
// only needs the loopback interface, which every network namespace has.

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <cstdio>

#include <infiniband/verbs.h>
#include <linux/if_arp.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>

#include "gtest/gtest.h"

// @rdma_core//:ibverbs must hand this define to its users; without it no provider is linked.
#ifndef RDMA_STATIC_PROVIDERS
#error "RDMA_STATIC_PROVIDERS is not defined: @rdma_core//:ibverbs lost its `defines`"
#endif

// <rdma/...> must be rdma-core's kernel-headers/ copy under both toolchains, not the host's
// linux-libc-dev 6.1 or zig's bundled Linux 6.3 uapi: RDMA_NLDEV_CMD_DELDEV and
// RDMA_NLDEV_ATTR_PARENT_NAME are missing from both, IB_UVERBS_WR_FLUSH from the host's.
static_assert(RDMA_NLDEV_CMD_DELDEV > 0, "rdma-core's rdma_netlink.h");
static_assert(RDMA_NLDEV_ATTR_PARENT_NAME > 0, "rdma-core's rdma_netlink.h");
static_assert(IB_UVERBS_WR_FLUSH > 0, "rdma-core's ib_user_verbs.h");
static_assert(ARPHRD_LOOPBACK == 772, "uapi if_arp.h");

namespace {

TEST(IbverbsLinkTest, GetDeviceListWorksWithoutHardware) {
  int num_devices = -1;
  errno = 0;
  struct ibv_device** devices = ibv_get_device_list(&num_devices);
  if (devices == nullptr) {
    // No verbs support in this kernel/container (no RDMA netlink, no
    // /sys/class/infiniband_verbs).
    const int err = errno;
    EXPECT_TRUE(err == ENOSYS || err == ENODEV) << "errno " << err << ": " << strerror(err);
    EXPECT_EQ(num_devices, 0);
    std::printf("ibv_get_device_list: NULL, errno %d (%s)\n", err, strerror(err));
    return;
  }
  ASSERT_GE(num_devices, 0);
  std::printf("ibv_get_device_list: %d device(s)\n", num_devices);
  for (int i = 0; i < num_devices; ++i) {
    ASSERT_NE(devices[i], nullptr);
    EXPECT_NE(ibv_get_device_name(devices[i]), nullptr);
  }
  EXPECT_EQ(devices[num_devices], nullptr);
  ibv_free_device_list(devices);
}

TEST(LibnlLinkTest, LoopbackIsListedWithArphrdLoopback) {
  struct nl_sock* sock = nl_socket_alloc();
  ASSERT_NE(sock, nullptr);
  ASSERT_EQ(nl_connect(sock, NETLINK_ROUTE), 0);

  struct nl_cache* links = nullptr;
  const int err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &links);
  ASSERT_EQ(err, 0) << nl_geterror(err);
  ASSERT_NE(links, nullptr);
  EXPECT_GE(nl_cache_nitems(links), 1);

  struct rtnl_link* lo = rtnl_link_get_by_name(links, "lo");
  ASSERT_NE(lo, nullptr) << "no \"lo\" among " << nl_cache_nitems(links) << " links";
  EXPECT_EQ(rtnl_link_get_arptype(lo), 772u);  // ARPHRD_LOOPBACK
  EXPECT_GT(rtnl_link_get_ifindex(lo), 0);
  rtnl_link_put(lo);

  nl_cache_free(links);
  nl_socket_free(sock);
}

}  // namespace
