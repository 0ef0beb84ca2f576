// What the route netlink executors decide from the kernel's answers alone (apply/links.cc),
// for tests that give them the link states a kernel they cannot run reports (IPoIB).
#pragma once

#include "provision/apply/log.h"
#include "provision/apply/outcome.h"
#include "provision/kernel/rtnl.h"
#include "provision/plan/action.h"

namespace rp {

// How an MTU change to `want` ended, from the link before it and as the kernel reports it
// after (nullptr: it could not be read again). A datagram-mode IPoIB link that runs less
// than asked is done with a warning: ipoib_change_mtu (ipoib_main.c) keeps `want` as the
// admin MTU and runs min(broadcast group MTU, admin MTU). Any other difference fails.
Outcome mtu_outcome(const LinkInfo& before, unsigned want, const LinkInfo* after, Log& log);

// Whether the link a rename is about to act on still has the hardware address the plan saw
// (a guard against races with udev and hotplug; `want` empty: nothing to compare). For
// IPoIB only the port GUID, the last 8 of its 20 bytes, is stable (ipoib_main.c
// ipoib_add_port builds the address from the QPN, the subnet prefix and the GUID).
bool same_hardware(const LinkInfo& l, const std::optional<HwAddress>& want);

// The verdict on `existing`, the link named like the P_Key child `p` asks for, found before
// creating it: already there when it sits on `parent` (its iflink, ipoib_main.c
// ipoib_get_iflink) with the P_Key, else a failure saying what it is instead.
Outcome existing_pkey_child(const CreatePkeyChild& p, const LinkInfo& parent,
                            const LinkInfo& existing);

}  // namespace rp
