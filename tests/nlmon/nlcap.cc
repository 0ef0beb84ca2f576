// nlcap: runs one command and prints every netlink message the kernel's netlink taps saw
// while it ran, as hex, for tests/nlmon/compare.py. Test-only; runs inside the QEMU guest
// of tests/e2e scenario 8-netlink-requests.
//
//   nlcap LABEL DEVICE -- COMMAND [ARGS...]
//
// DEVICE is an nlmon link (drivers/net/nlmon.c) that is up. Every netlink message a
// socket of a tapped protocol sends or receives is cloned to it (net/netlink/af_netlink.c
// __netlink_deliver_tap_skb): the payload is the netlink message itself, skb->protocol is
// the socket's protocol (NETLINK_ROUTE = 0, ...) and pkt_type says the direction
// (PACKET_KERNEL: to the kernel, PACKET_USER: to a user socket). netlink_filter_tap
// lets only some protocols through: NETLINK_ROUTE is one, NETLINK_RDMA is not, so RDMA
// netlink is compared from strace's dump of the same sendmsg instead (see compare.py).
// A packet socket sees the clone on its way out of the tap (net/core/dev.c
// dev_queue_xmit_nit sets PACKET_OUTGOING), so the direction printed is usually
// "outgoing": compare.py tells requests (NLM_F_REQUEST) from answers by the message.
//
// Output, one line per captured frame, then the command's exit status:
//   NLCAP <label> <to-kernel|to-user|outgoing> proto=<n> <hex bytes>
//   NLCAP <label> exit=<status>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// include/uapi/linux/if_packet.h (newer than some libc copies).
constexpr int kPacketOutgoing = 4;
constexpr int kPacketUser = 6;
constexpr int kPacketKernel = 7;

int fail(const char* what) {
  std::fprintf(stderr, "nlcap: %s: %s\n", what, std::strerror(errno));
  return 2;
}

void print_frame(const std::string& label, const sockaddr_ll& from, const uint8_t* data,
                 size_t len) {
  const char* dir = from.sll_pkttype == kPacketKernel     ? "to-kernel"
                    : from.sll_pkttype == kPacketUser     ? "to-user"
                    : from.sll_pkttype == kPacketOutgoing ? "outgoing"
                                                          : "other";
  std::string hex;
  hex.reserve(len * 2);
  static const char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; ++i) {
    hex.push_back(kDigits[data[i] >> 4]);
    hex.push_back(kDigits[data[i] & 15]);
  }
  std::printf("NLCAP %s %s proto=%u %s\n", label.c_str(), dir, ntohs(from.sll_protocol),
              hex.c_str());
}

// Reads what is queued, printing it under `label` (nullptr: discards it); stops after
// `quiet_ms` without a frame.
void drain(int fd, const char* label, int quiet_ms) {
  std::vector<uint8_t> buf(1 << 16);
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, quiet_ms) <= 0) return;
    sockaddr_ll from{};
    socklen_t fl = sizeof from;
    ssize_t n =
        recvfrom(fd, buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &fl);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;
    }
    if (label) print_frame(label, from, buf.data(), static_cast<size_t>(n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || std::strcmp(argv[3], "--") != 0) {
    std::fprintf(stderr, "usage: nlcap LABEL NLMON-DEVICE -- COMMAND [ARGS...]\n");
    return 2;
  }
  const std::string label = argv[1];
  const unsigned ifindex = if_nametoindex(argv[2]);
  if (ifindex == 0) return fail(argv[2]);
  int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
  if (fd < 0) return fail("socket(AF_PACKET)");
  int rcvbuf = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = static_cast<int>(ifindex);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail("bind");
  // Frames queued before the command (udev, an earlier step) are not its own.
  drain(fd, nullptr, 0);
  std::fflush(stdout);

  pid_t pid = fork();
  if (pid < 0) return fail("fork");
  if (pid == 0) {
    close(fd);
    execvp(argv[4], argv + 4);
    std::fprintf(stderr, "nlcap: %s: %s\n", argv[4], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The taps see a message inside the sender's sendmsg(); what is left is in our queue.
  drain(fd, label.c_str(), 200);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("NLCAP %s exit=%d\n", label.c_str(), code);
  return 0;
}
