// NVMe over Fabrics, the host's side (kernel/nvme_fabrics.h), without a kernel: the option
// string a connect writes, the kernel's answer to it, and the Discovery Log Page as the
// admin command returns it (NVMe over Fabrics specification, Discovery Log Page; nvmet's
// discovery.c nvmet_format_discovery_entry fills it).
#include "provision/kernel/nvme_fabrics.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace rp {
namespace {

TEST(NvmeFabrics, TheOptionsAConnectWrites) {
  // What nvme-cli's connect writes for a target given by dracut's discovery.conf line
  // (libnvme build_options): host_traddr "none" never reaches the kernel.
  NvmfConnect c;
  c.traddr = "10.77.0.1";
  EXPECT_EQ(nvmf_options(c),
            "nqn=nqn.2014-08.org.nvmexpress.discovery,transport=rdma,traddr=10.77.0.1,"
            "trsvcid=4420");
  c.nqn = "nqn.2026-11.io.rdma-provision:e2e-root";
  c.host_traddr = "10.77.0.2";
  c.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d";
  c.hostid = "5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d";
  EXPECT_EQ(nvmf_options(c),
            "nqn=nqn.2026-11.io.rdma-provision:e2e-root,transport=rdma,traddr=10.77.0.1,"
            "trsvcid=4420,host_traddr=10.77.0.2,hostnqn=nqn.2014-08.org.nvmexpress:uuid:"
            "5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d,hostid=5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d");
  // The NQN without its ID is never sent (6.12 nvmf_host_add pairs them: EINVAL).
  c.hostid.clear();
  EXPECT_EQ(nvmf_options(c).find("hostnqn"), std::string::npos);
}

TEST(NvmeFabrics, TheKernelsAnswerNamesTheController) {
  // nvmf_dev_show: "instance=%d,cntlid=%d\n".
  auto c = parse_nvmf_reply("instance=3,cntlid=1\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->instance, 3);
  EXPECT_EQ(c->cntlid, 1);
  // Before a write, 6.12 lists the option tokens with instance=-1: no controller.
  EXPECT_FALSE(parse_nvmf_reply("instance=-1,cntlid=-1,transport=%s,traddr=%s"));
  EXPECT_FALSE(parse_nvmf_reply(""));
  EXPECT_FALSE(parse_nvmf_reply("cntlid=1"));
}

// A log page: the header (generation counter at 0, number of records at 8) and entries of
// 1024 bytes (trtype 0, adrfam 1, subtype 2, portid 4..5, trsvcid 32..63, subnqn
// 256..511, traddr 512..767).
std::vector<uint8_t> page(const std::vector<NvmfLogEntry>& entries, uint64_t numrec) {
  std::vector<uint8_t> p(1024 * (entries.size() + 1));
  p[0] = 7;  // generation counter
  for (int i = 0; i < 8; ++i) p[8 + i] = static_cast<uint8_t>(numrec >> (8 * i));
  for (size_t i = 0; i < entries.size(); ++i) {
    uint8_t* e = p.data() + 1024 * (i + 1);
    e[0] = entries[i].trtype;
    e[1] = entries[i].adrfam;
    e[2] = entries[i].subtype;
    e[4] = static_cast<uint8_t>(entries[i].portid);
    std::memcpy(e + 32, entries[i].trsvcid.data(), entries[i].trsvcid.size());
    std::memcpy(e + 256, entries[i].subnqn.data(), entries[i].subnqn.size());
    std::memcpy(e + 512, entries[i].traddr.data(), entries[i].traddr.size());
  }
  return p;
}

TEST(NvmeFabrics, TheDiscoveryLogAsTheTargetFillsIt) {
  NvmfLogEntry nvme{1, 1, 2, 1, "4420", "10.77.0.1", "nqn.2026-11.io.rdma-provision:e2e-root"};
  NvmfLogEntry self{1, 1, 3, 1, "4420", "10.77.0.1", kNvmfDiscoveryNqn};
  // A space-padded field (the specification pads ASCII fields with spaces).
  NvmfLogEntry tcp{3, 1, 2, 2, "4420    ", "10.77.1.1   ", "nqn.2026-11.io.rdma-provision:tcp"};
  auto log = parse_discovery_log(page({nvme, self, tcp}, 3));
  ASSERT_TRUE(log) << log.error().str();
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ((*log)[0].subnqn, "nqn.2026-11.io.rdma-provision:e2e-root");
  EXPECT_EQ((*log)[0].traddr, "10.77.0.1");
  EXPECT_EQ((*log)[0].trsvcid, "4420");
  EXPECT_EQ((*log)[0].trtype, kNvmfTrtypeRdma);
  EXPECT_EQ((*log)[0].subtype, kNvmfSubtypeNvme);
  EXPECT_EQ((*log)[1].subtype, 3);
  EXPECT_EQ((*log)[2].traddr, "10.77.1.1");
  EXPECT_EQ((*log)[2].trsvcid, "4420");
  EXPECT_EQ((*log)[2].portid, 2);
  // A header that claims more records than the page holds, and a page shorter than its
  // header, are refused rather than read past their end.
  EXPECT_FALSE(parse_discovery_log(page({nvme}, 2)));
  EXPECT_FALSE(parse_discovery_log(std::vector<uint8_t>(100)));
  auto none = parse_discovery_log(page({}, 0));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(NvmeFabrics, WhatTheKernelsErrnoMeansForAConnect) {
  EXPECT_NE(nvmf_errno_meaning(ECONNRESET).find("RDMA connection failed"), std::string::npos);
  EXPECT_NE(nvmf_errno_meaning(EIO).find("refused the Fabrics connect"), std::string::npos);
  EXPECT_NE(nvmf_errno_meaning(ENOENT).find("nvme_fabrics is not loaded"), std::string::npos);
  EXPECT_EQ(nvmf_errno_meaning(EPERM), "");
}

}  // namespace
}  // namespace rp
