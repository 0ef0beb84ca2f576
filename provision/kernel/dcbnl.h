// DCB netlink (include/uapi/linux/dcbnl.h, net/dcb/dcbnl.c), wrapped once here: an
// interface's IEEE 802.1Qaz state read with RTM_GETDCB DCB_CMD_IEEE_GET, changed with
// RTM_SETDCB DCB_CMD_IEEE_SET / DCB_CMD_IEEE_DEL, each request built as iproute2's `dcb`
// builds it (dcb/dcb.c dcb_prepare: flags REQUEST|ACK, struct dcbmsg, DCB_ATTR_IFNAME with
// its NUL, one DCB_ATTR_IEEE nest). The kernel answers in two places: the ack (ENODEV for
// no such interface, EOPNOTSUPP for a driver without dcbnl_ops, dcb_doit) and, for a set,
// a one-byte status in the reply's DCB_ATTR_IEEE (the driver's refusal, dcbnl_ieee_set):
// both are errors here, naming the interface and what was asked.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "provision/base/result.h"
#include "provision/base/types.h"

namespace rp {

// What is written: the whole struct of a kind, built from what the interface shows with
// the wanted fields changed (as `dcb pfc set` and `dcb ets set` read, modify and write).
struct DcbPfcRequest {
  uint8_t pfc_en = 0;
  uint8_t pfc_cap = 0, mbc = 0;
  uint16_t delay = 0;
};
struct DcbEtsRequest {
  uint8_t willing = 0, ets_cap = 0, cbs = 0;
  std::array<uint8_t, 8> tc_bw{}, tc_tsa{}, prio_tc{};
};
struct DcbAppEntry {
  uint8_t selector = 5;  // IEEE_8021QAZ_APP_SEL_DSCP
  uint8_t priority = 0;
  uint16_t protocol = 0;  // the DSCP for selector 5
};

// The kernel's DCB netlink, or a stand-in that answers as a driver would (tests).
class DcbOps {
 public:
  virtual ~DcbOps() = default;
  virtual Result<DcbState> get(const std::string& ifname) const = 0;
  virtual Status set_pfc(const std::string& ifname, const DcbPfcRequest& pfc) const = 0;
  virtual Status set_ets(const std::string& ifname, const DcbEtsRequest& ets) const = 0;
  // APP table entries added (DCB_CMD_IEEE_SET) or deleted (DCB_CMD_IEEE_DEL), all in one
  // request, as `dcb app add` / `dcb app del` send them.
  virtual Status add_apps(const std::string& ifname,
                          const std::vector<DcbAppEntry>& entries) const = 0;
  virtual Status del_apps(const std::string& ifname,
                          const std::vector<DcbAppEntry>& entries) const = 0;
  // The trust table (DCB_ATTR_DCB_APP_TRUST_TABLE, kernels 6.2 and later; only drivers
  // with dcbnl_setapptrust take it): selectors, most trusted first.
  virtual Status set_trust(const std::string& ifname,
                           const std::vector<uint8_t>& selectors) const = 0;
};

// The running kernel's.
const DcbOps& kernel_dcb();

// The bytes of each request as sent (sequence number 0), for the comparison with
// iproute2's `dcb` (tests/nlmon) and tests.
std::vector<uint8_t> dcb_get_request(const std::string& ifname);
std::vector<uint8_t> dcb_pfc_request(const std::string& ifname, const DcbPfcRequest& pfc);
std::vector<uint8_t> dcb_ets_request(const std::string& ifname, const DcbEtsRequest& ets);
std::vector<uint8_t> dcb_apps_request(const std::string& ifname,
                                      const std::vector<DcbAppEntry>& entries, bool del);

// A reply to DCB_CMD_IEEE_GET (the payload after struct dcbmsg's header) as the state it
// shows; exposed for tests.
DcbState parse_dcb_ieee_reply(const uint8_t* attrs, size_t len);

}  // namespace rp
