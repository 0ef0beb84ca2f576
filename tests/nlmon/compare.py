#!/usr/bin/env python3
"""Compares the netlink requests rdma-provision sends with iproute2's for the same operation.

Reads the serial log of tests/e2e scenario 8-netlink-requests, where the guest ran each
operation twice, once through nl-ops (rdma-provision's own provision/kernel functions)
and once through `ip`/`rdma`, undoing the first in between:

  NLCAP <op>.<ours|ip> <direction> proto=<n> <hex>            route netlink, nlmon tap
  NLCAP <op>.<ours|ip> exit=<n>
  STRACE <op>.<ours|ip> <strace -e write=all -e read=all line>  RDMA netlink (not tapped)
  STRACE <op>.<ours|ip> proto=<n>                              (default 20, NETLINK_RDMA)
  STATE <op>.<ours|ip> <line>                                  what the kernel shows after

Prints one block per operation: each side's change requests decoded attribute by
attribute, the kernel's answers, and a verdict. Exit status 1 when an operation was not
captured on both sides, the kernel answered the two differently, the state after them
differs, or a request differs in a way not listed in EQUIVALENT.

Layouts follow the kernel's uapi headers: linux/netlink.h (nlmsghdr, nlattr, nlmsgerr),
linux/rtnetlink.h (ifinfomsg, ifaddrmsg, rtmsg, RTM_*), linux/if_link.h (IFLA_*,
IFLA_INFO_*, IFLA_IPOIB_*), linux/if_addr.h (IFA_*), rdma/rdma_netlink.h (RDMA_NLDEV_*).
"""

import re
import struct
import sys

NETLINK_ROUTE = 0
NETLINK_RDMA = 20
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 0x1, 0x2, 0x4, 0x8
# For NEW requests (linux/netlink.h): REPLACE 0x100, EXCL 0x200, CREATE 0x400, APPEND 0x800.
NEW_FLAGS = {0x100: "REPLACE", 0x200: "EXCL", 0x400: "CREATE", 0x800: "APPEND"}
GET_FLAGS = {0x100: "ROOT", 0x200: "MATCH"}
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3FFF

RTM = {16: "RTM_NEWLINK", 17: "RTM_DELLINK", 18: "RTM_GETLINK", 19: "RTM_SETLINK",
       20: "RTM_NEWADDR", 21: "RTM_DELADDR", 22: "RTM_GETADDR",
       24: "RTM_NEWROUTE", 25: "RTM_DELROUTE", 26: "RTM_GETROUTE"}
RTM_CHANGES = {16, 17, 19, 20, 21, 24, 25}
# DCB netlink (linux/rtnetlink.h RTM_GETDCB 78, RTM_SETDCB 79; linux/dcbnl.h): every
# request is compared, gets too (a get is how `dcb pfc set` and rdma-provision start).
RTM_DCB = {78: "RTM_GETDCB", 79: "RTM_SETDCB"}
DCB_CMDS = {20: "IEEE_SET", 21: "IEEE_GET", 22: "GDCBX", 23: "SDCBX", 27: "IEEE_DEL"}

# rdma/rdma_netlink.h: RDMA_NL_GET_TYPE(client, op) = client << 10 | op; NLDEV is client 5.
RDMA_NLDEV = 5
NLDEV_CMDS = {1: "GET", 2: "SET", 3: "NEWLINK", 4: "DELLINK", 5: "PORT_GET"}
NLDEV_CHANGES = {2, 3, 4}

U8, U16, U32, S32, STR, HEX, ADDR = "u8", "u16", "u32", "s32", "str", "hex", "addr"
# name, how to show the payload (a dict: nested attributes)
IPOIB_DATA = {1: ("IFLA_IPOIB_PKEY", U16), 2: ("IFLA_IPOIB_MODE", U16),
              3: ("IFLA_IPOIB_UMCAST", U16)}
LINKINFO = {1: ("IFLA_INFO_KIND", STR), 2: ("IFLA_INFO_DATA", IPOIB_DATA),
            3: ("IFLA_INFO_XSTATS", HEX), 4: ("IFLA_INFO_SLAVE_KIND", STR)}
IFLA = {1: ("IFLA_ADDRESS", HEX), 2: ("IFLA_BROADCAST", HEX), 3: ("IFLA_IFNAME", STR),
        4: ("IFLA_MTU", U32), 5: ("IFLA_LINK", U32), 13: ("IFLA_TXQLEN", U32),
        16: ("IFLA_OPERSTATE", U8), 17: ("IFLA_LINKMODE", U8), 18: ("IFLA_LINKINFO", LINKINFO),
        19: ("IFLA_NET_NS_PID", U32), 29: ("IFLA_EXT_MASK", U32), 33: ("IFLA_CARRIER", U8),
        41: ("IFLA_ALT_IFNAME", STR), 53: ("IFLA_ALT_IFNAME", STR)}
IFA = {1: ("IFA_ADDRESS", ADDR), 2: ("IFA_LOCAL", ADDR), 3: ("IFA_LABEL", STR),
       4: ("IFA_BROADCAST", ADDR), 6: ("IFA_CACHEINFO", HEX), 8: ("IFA_FLAGS", U32),
       9: ("IFA_RT_PRIORITY", U32)}
RTA = {1: ("RTA_DST", ADDR), 2: ("RTA_SRC", ADDR), 3: ("RTA_IIF", U32), 4: ("RTA_OIF", U32),
       5: ("RTA_GATEWAY", ADDR), 6: ("RTA_PRIORITY", U32), 7: ("RTA_PREFSRC", ADDR),
       15: ("RTA_TABLE", U32)}
DCB_APP_TABLE = {1: ("DCB_ATTR_IEEE_APP", HEX), 2: ("DCB_ATTR_DCB_APP", HEX)}
DCB_IEEE = {1: ("DCB_ATTR_IEEE_ETS", HEX), 2: ("DCB_ATTR_IEEE_PFC", HEX),
            3: ("DCB_ATTR_IEEE_APP_TABLE", DCB_APP_TABLE),
            11: ("DCB_ATTR_DCB_APP_TRUST_TABLE", {1: ("DCB_ATTR_IEEE_APP", U8),
                                                  2: ("DCB_ATTR_DCB_APP", U8)})}
DCB = {1: ("DCB_ATTR_IFNAME", STR), 13: ("DCB_ATTR_IEEE", DCB_IEEE), 14: ("DCB_ATTR_DCBX", U8)}
NLDEV = {1: ("RDMA_NLDEV_ATTR_DEV_INDEX", U32), 2: ("RDMA_NLDEV_ATTR_DEV_NAME", STR),
         3: ("RDMA_NLDEV_ATTR_PORT_INDEX", U32), 50: ("RDMA_NLDEV_ATTR_NDEV_INDEX", U32),
         51: ("RDMA_NLDEV_ATTR_NDEV_NAME", STR), 65: ("RDMA_NLDEV_ATTR_LINK_TYPE", STR)}

# Requests that differ in bytes but not in what the kernel does with them. Each entry:
# (operation, the attribute path or header field, why the kernel treats both the same).
_SETLINK = ("the kernel changes an existing link the same way for both: rtnetlink.c "
            "rtnl_setlink (RTM_SETLINK) and __rtnl_newlink on a link that exists without "
            "NLM_F_CREATE (RTM_NEWLINK) both end in do_setlink")
_BY_NAME = ("rtnl_setlink finds the link by ifi_index, else by IFLA_IFNAME "
            "(rtnetlink.c rtnl_dev_get): the same link either way")
_NESTED = ("rtnetlink parses IFLA_LINKINFO and the link kind's IFLA_INFO_DATA with "
           "nla_parse_nested_deprecated (rtnetlink.c rtnl_newlink/__rtnl_newlink), which "
           "accepts nests with and without NLA_F_NESTED")
EQUIVALENT = [(op, "type", _SETLINK) for op in ("rename", "mtu", "up", "down")] + [
    (op, field, _BY_NAME) for op in ("mtu", "up", "down") for field in ("ifi_index", "IFLA_IFNAME")
] + [(op, field, _NESTED) for op in ("pkey-child", "pkey-child-default", "ipoib-mode")
     for field in ("IFLA_LINKINFO", "IFLA_LINKINFO/IFLA_INFO_DATA")]


def attr_value(kind, payload):
    if isinstance(kind, dict):
        return None
    if kind == STR:
        return '"%s"' % payload.split(b"\0", 1)[0].decode("utf-8", "replace")
    if kind in (U8, U16, U32, S32) and len(payload) >= {U8: 1, U16: 2, U32: 4, S32: 4}[kind]:
        fmt = {U8: "<B", U16: "<H", U32: "<I", S32: "<i"}[kind]
        return str(struct.unpack_from(fmt, payload)[0])
    if kind == ADDR and len(payload) == 4:
        return ".".join(str(b) for b in payload)
    if kind == ADDR and len(payload) == 16:
        return ":".join("%02x%02x" % (payload[i], payload[i + 1]) for i in range(0, 16, 2))
    return payload.hex()


def attributes(data, table, prefix=""):
    """[(path, value)] of the attributes in `data`, nested ones flattened with '/'."""
    out, off = [], 0
    while off + 4 <= len(data):
        nla_len, nla_type = struct.unpack_from("<HH", data, off)
        if nla_len < 4 or off + nla_len > len(data):
            out.append((prefix + "(truncated)", data[off:].hex()))
            break
        payload = data[off + 4:off + nla_len]
        num = nla_type & NLA_TYPE_MASK
        name, kind = table.get(num, ("attr%d" % num, HEX))
        path = prefix + name
        if isinstance(kind, dict):
            out.append((path, "{nested}" if nla_type & NLA_F_NESTED else "{}"))
            out.extend(attributes(payload, kind, path + "/"))
        else:
            out.append((path, attr_value(kind, payload)))
        off += (nla_len + 3) & ~3
    return out


def flag_names(msg_type, flags, proto):
    names = []
    for bit, name in ((NLM_F_REQUEST, "REQUEST"), (NLM_F_MULTI, "MULTI"), (NLM_F_ACK, "ACK"),
                      (NLM_F_ECHO, "ECHO")):
        if flags & bit:
            names.append(name)
    is_get = (proto == NETLINK_ROUTE and msg_type in (18, 22, 26, 78)) or (
        proto == NETLINK_RDMA and (msg_type & 0x3FF) in (1, 5))
    for bit, name in (GET_FLAGS if is_get else NEW_FLAGS).items():
        if flags & bit:
            names.append(name)
    rest = flags & ~0xF0F
    if rest:
        names.append("0x%x" % rest)
    return "|".join(names) or "0"


class Message:
    """One netlink message: header fields and attributes, decoded."""

    def __init__(self, proto, raw):
        self.proto = proto
        self.raw = raw
        ln, self.type, self.flags, self.seq, self.pid = struct.unpack_from("<IHHII", raw, 0)
        body = raw[16:ln]
        self.header = []  # [(field, value)]
        self.attrs = []
        self.errno = None
        if self.type == NLMSG_ERROR:
            err, = struct.unpack_from("<i", body, 0)
            self.errno = -err
            # The request's own header follows, as the sender wrote it (af_netlink.c
            # netlink_ack): its type, seq and port id say what was answered.
            if len(body) >= 20:
                _, t, _, seq, pid = struct.unpack_from("<IHHII", body, 4)
                self.answers = (t, seq, pid)
            self.name = "NLMSG_ERROR"
            return
        if self.type == NLMSG_DONE:
            self.name = "NLMSG_DONE"
            return
        if proto == NETLINK_RDMA:
            client, op = self.type >> 10, self.type & 0x3FF
            self.name = "RDMA_NLDEV_CMD_" + NLDEV_CMDS.get(op, str(op)) if client == RDMA_NLDEV \
                else "rdma(%d,%d)" % (client, op)
            self.attrs = attributes(body, NLDEV)
            return
        self.name = RTM.get(self.type, RTM_DCB.get(self.type, "type%d" % self.type))
        if self.type in RTM_DCB:
            f = struct.unpack_from("<BBH", body, 0)
            self.header = [("dcb_family", f[0]), ("cmd", DCB_CMDS.get(f[1], str(f[1])))]
            self.attrs = attributes(body[4:], DCB)
        elif self.type in (16, 17, 18, 19):
            f = struct.unpack_from("<BBHiII", body, 0)
            self.header = [("ifi_family", f[0]), ("ifi_type", f[2]), ("ifi_index", f[3]),
                           ("ifi_flags", "0x%x" % f[4]), ("ifi_change", "0x%x" % f[5])]
            self.attrs = attributes(body[16:], IFLA)
        elif self.type in (20, 21, 22):
            f = struct.unpack_from("<BBBBI", body, 0)
            self.header = [("ifa_family", f[0]), ("ifa_prefixlen", f[1]), ("ifa_flags", f[2]),
                           ("ifa_scope", f[3]), ("ifa_index", f[4])]
            self.attrs = attributes(body[8:], IFA)
        elif self.type in (24, 25, 26):
            f = struct.unpack_from("<BBBBBBBBI", body, 0)
            self.header = [("rtm_family", f[0]), ("rtm_dst_len", f[1]), ("rtm_src_len", f[2]),
                           ("rtm_tos", f[3]), ("rtm_table", f[4]), ("rtm_protocol", f[5]),
                           ("rtm_scope", f[6]), ("rtm_type", f[7]), ("rtm_flags", f[8])]
            self.attrs = attributes(body[12:], RTA)

    def is_probe(self):
        """iproute2's check that the kernel has RTM_NEWLINK, sent before `ip link` changes:
        an RTM_NEWLINK for ifindex 0 without attributes (ip/iplink.c iplink_have_newlink;
        the kernel answers ENODEV)."""
        return (self.proto == NETLINK_ROUTE and self.type == 16 and not self.attrs
                and ("ifi_index", 0) in self.header)

    def is_change(self):
        if not self.flags & NLM_F_REQUEST or self.is_probe():
            return False
        if self.proto == NETLINK_RDMA:
            return (self.type >> 10) == RDMA_NLDEV and (self.type & 0x3FF) in NLDEV_CHANGES
        return self.type in RTM_CHANGES or self.type in RTM_DCB

    def fields(self):
        """What is compared: everything but the length, sequence number and port id."""
        return ([("type", self.name), ("flags", flag_names(self.type, self.flags, self.proto))]
                + self.header + self.attrs)

    def text(self):
        return "%s %s %s" % (self.name, flag_names(self.type, self.flags, self.proto),
                             " ".join("%s=%s" % kv for kv in self.header + self.attrs))


def split_messages(proto, data):
    out, off = [], 0
    while off + 16 <= len(data):
        ln = struct.unpack_from("<I", data, off)[0]
        if ln < 16 or off + ln > len(data):
            break
        out.append(Message(proto, data[off:off + ln]))
        off += (ln + 3) & ~3
    return out


class Side:
    """What one run (nl-ops or iproute2) sent and was answered, and the state after it."""

    def __init__(self):
        self.sent = []      # Messages to the kernel
        self.answers = []   # NLMSG_ERROR messages from the kernel
        self.exit = None
        self.state = []
        self.strace_buf = None  # the bytes of the syscall being dumped
        self.strace_proto = NETLINK_RDMA  # "STRACE <label> proto=<n>" may say otherwise

    def add(self, proto, data):
        # Requests carry NLM_F_REQUEST, the kernel's messages never do (af_netlink.c
        # netlink_rcv_skb handles only requests): this decides, not the capture's direction.
        for m in split_messages(proto, data):
            (self.sent if m.flags & NLM_F_REQUEST else self.answers).append(m)

    def changes(self):
        return [m for m in self.sent if m.is_change()]

    def answer_to(self, msg):
        for a in self.answers:
            if getattr(a, "answers", None) == (msg.type, msg.seq, msg.pid):
                return a.errno
        return None


STRACE_CALL = re.compile(r"^(?:\d+ +)?(sendto|sendmsg|recvfrom|recvmsg)\((\d+),")
STRACE_HEX = re.compile(r"^ ?\| [0-9a-f]{5}  ((?:[0-9a-f]{2} {1,2}){1,16})")


def parse_log(lines):
    """{op: {"ours": Side, "ip": Side}} from the serial log's NLCAP/STRACE/STATE lines."""
    ops = {}

    def side(label):
        op, _, who = label.rpartition(".")
        return ops.setdefault(op, {}).setdefault(who, Side())

    def flush(s):
        if s.strace_buf is not None:
            s.add(s.strace_proto, bytes(s.strace_buf))
            s.strace_buf = None

    for line in lines:
        line = line.rstrip("\r\n")
        at = line.find("NLCAP ")
        if at < 0:
            at = line.find("STRACE ")
        if at < 0:
            at = line.find("STATE ")
        if at < 0:
            continue
        words = line[at:].split(" ", 2)
        if len(words) < 3:
            continue
        tag, label, rest = words
        s = side(label)
        if tag == "NLCAP":
            if rest.startswith("exit="):
                s.exit = int(rest[5:])
                continue
            parts = rest.split(" ")
            if len(parts) == 3 and parts[1].startswith("proto="):
                s.add(int(parts[1][6:]), bytes.fromhex(parts[2]))
        elif tag == "STATE":
            s.state.append(rest)
        elif tag == "STRACE":
            if re.fullmatch(r"proto=\d+", rest):
                s.strace_proto = int(rest[6:])
                continue
            m = STRACE_CALL.match(rest)
            if m:
                flush(s)
                s.strace_buf = bytearray()
                continue
            h = STRACE_HEX.match(rest)
            if h and s.strace_buf is not None:
                s.strace_buf.extend(bytes.fromhex(h.group(1).replace(" ", "")))
            elif rest.startswith("exit="):
                flush(s)
                s.exit = int(rest[5:])
    for sides in ops.values():
        for s in sides.values():
            flush(s)
    return ops


def compare_op(op, sides):
    """(ok, [report lines]) for one operation."""
    lines, ok = ["== %s" % op], True
    ours, ip = sides.get("ours"), sides.get("ip")
    if ours is None or ip is None:
        return False, lines + ["   FAIL: not run on both sides (have: %s)" % sorted(sides)]
    a, b = ours.changes(), ip.changes()
    for who, s, msgs in (("rdma-provision", ours, a), ("iproute2", ip, b)):
        for m in msgs:
            answer = s.answer_to(m)
            lines.append("   %-14s %s -> %s" % (who, m.text(),
                                                 "no answer" if answer is None else
                                                 "ok" if answer == 0 else "errno %d" % answer))
    if not a or not b:
        return False, lines + ["   FAIL: no change request captured on %s" %
                               ("either side" if not a and not b else
                                "rdma-provision's side" if not a else "iproute2's side")]
    if len(a) != len(b):
        ok = False
        lines.append("   FAIL: %d request(s) against %d" % (len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        fx, fy = x.fields(), y.fields()
        only_x = [f for f in fx if f not in fy]
        only_y = [f for f in fy if f not in fx]
        allowed = {(o, field) for o, field, _ in EQUIVALENT}
        unexplained = [f for f in only_x + only_y if (op, f[0]) not in allowed]
        for f in only_x:
            lines.append("   differs: rdma-provision %s=%s" % f)
        for f in only_y:
            lines.append("   differs: iproute2       %s=%s" % f)
        for o, field, why in EQUIVALENT:
            if o == op and any(f[0] == field for f in only_x + only_y):
                lines.append("   equivalent: %s: %s" % (field, why))
        if unexplained:
            ok = False
        ex, ey = ours.answer_to(x), ip.answer_to(y)
        if ex != ey:
            ok = False
            lines.append("   FAIL: the kernel answered request %d with %s and %s" % (i + 1, ex, ey))
    if ours.state != ip.state:
        ok = False
        lines.append("   FAIL: the kernel's state after them differs:")
        lines += ["     rdma-provision: " + s for s in ours.state]
        lines += ["     iproute2:       " + s for s in ip.state]
    lines.append("   %s" % ("same request, same answer, same state" if ok and all(
        x.fields() == y.fields() for x, y in zip(a, b)) else
        "equivalent" if ok else "DIFFERENT"))
    return ok, lines


def main(argv):
    if len(argv) != 2:
        print("usage: compare.py SERIAL-LOG", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        ops = parse_log(f)
    if not ops:
        print("compare: no NLCAP/STRACE lines in %s" % argv[1])
        return 1
    failed = 0
    for op in ops:
        ok, lines = compare_op(op, ops[op])
        print("\n".join(lines))
        failed += 0 if ok else 1
    print("compare: %d operation(s), %d same or equivalent, %d different" %
          (len(ops), len(ops) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
