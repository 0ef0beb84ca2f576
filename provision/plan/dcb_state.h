// Whether an interface's DCB state already holds what a DCB action wants, and how it is
// shown: the plan's question (plan/dcb.cc) and the executors' read-back (apply/dcb.cc),
// answered once.
#pragma once

#include <string>

#include "provision/plan/action.h"

namespace rp {

bool dcb_ets_holds(const DcbState& s, const SetDcbEts& want);
bool dcb_apps_hold(const DcbState& s, const SetDcbApps& want);
// "ETS tc_bw 0:50,3:50, prio_tc identity", "trust dscp, dscp_prio 26:3".
std::string dcb_ets_text(const DcbState& s);
std::string dcb_apps_text(const DcbState& s);

}  // namespace rp
