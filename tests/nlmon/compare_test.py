#!/usr/bin/env python3
"""compare.py on netlink messages laid out as the kernel's uapi headers say
(linux/netlink.h, linux/rtnetlink.h, linux/if_link.h, rdma/rdma_netlink.h), in the two
shapes the guest prints them: nlmon frames as hex (nlcap) and strace's -e write/read dumps.
An sh_test running the script itself (Bazel 4's py_test stub wants a `python`)."""

import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 0x1, 0x4, 0x200, 0x400
RTM_NEWLINK, RTM_SETLINK = 16, 19


def attr(kind, payload, nested=False):
    ln = 4 + len(payload)
    return struct.pack("<HH", ln, kind | (0x8000 if nested else 0)) + payload + b"\0" * (-ln % 4)


def string(kind, text):
    return attr(kind, text.encode() + b"\0")


def msg(msg_type, flags, body, seq=1, pid=0):
    return struct.pack("<IHHII", 16 + len(body), msg_type, flags, seq, pid) + body


def ifinfo(index=0, flags=0, change=0):
    return struct.pack("<BBHiII", 0, 0, 0, index, flags, change)


def ack(request, errno=0, pid=0):
    """NLMSG_ERROR answering `request` (af_netlink.c netlink_ack: the request's header)."""
    return msg(2, 0x100, struct.pack("<i", -errno) + request[:16], seq=0, pid=pid)


def pkey_child(nested, order_link_first=False, seq=1, pid=0):
    data = attr(1, struct.pack("<H", 0x8001)) + attr(2, struct.pack("<H", 1))
    info = string(1, "ipoib") + attr(2, data, nested)
    name, link = string(3, "ib0.8001"), attr(5, struct.pack("<I", 4))
    body = ifinfo() + (link + name if order_link_first else name + link) + attr(18, info, nested)
    return msg(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, body, seq, pid)


def nlcap(label, data, proto=0):
    """A frame as nlcap prints it: a packet socket sees the tap's clones as outgoing."""
    return "NLCAP %s outgoing proto=%d %s" % (label, proto, data.hex())


def strace_dump(data):
    """strace -e write=all: ' | 00000  xx xx ... xx  xx ... xx  ascii |' per 16 bytes."""
    out = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        hexes = " ".join("%02x" % b for b in chunk[:8])
        if len(chunk) > 8:
            hexes += "  " + " ".join("%02x" % b for b in chunk[8:])
        out.append(" | %05x  %-49s %-16s |" % (off, hexes, "." * len(chunk)))
    return out


class DecodeTest(unittest.TestCase):
    def test_pkey_child_request_attribute_by_attribute(self):
        m = compare.split_messages(0, pkey_child(nested=True))[0]
        self.assertEqual(m.name, "RTM_NEWLINK")
        self.assertTrue(m.is_change())
        self.assertEqual(dict(m.attrs), {
            "IFLA_IFNAME": '"ib0.8001"', "IFLA_LINK": "4", "IFLA_LINKINFO": "{nested}",
            "IFLA_LINKINFO/IFLA_INFO_KIND": '"ipoib"', "IFLA_LINKINFO/IFLA_INFO_DATA": "{nested}",
            "IFLA_LINKINFO/IFLA_INFO_DATA/IFLA_IPOIB_PKEY": str(0x8001),
            "IFLA_LINKINFO/IFLA_INFO_DATA/IFLA_IPOIB_MODE": "1"})
        self.assertEqual(compare.flag_names(m.type, m.flags, 0), "REQUEST|ACK|EXCL|CREATE")

    def test_iproute2_newlink_probe_is_not_a_change(self):
        probe = compare.split_messages(0, msg(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, ifinfo()))[0]
        self.assertTrue(probe.is_probe())
        self.assertFalse(probe.is_change())
        get = compare.split_messages(0, msg(18, NLM_F_REQUEST, ifinfo() + string(3, "ib0")))[0]
        self.assertFalse(get.is_change())

    def test_rdma_newlink_has_no_family_header(self):
        body = string(2, "rxe0") + string(65, "rxe") + string(51, "eth0")
        m = compare.split_messages(20, msg(5 << 10 | 3, NLM_F_REQUEST | NLM_F_ACK, body))[0]
        self.assertEqual(m.name, "RDMA_NLDEV_CMD_NEWLINK")
        self.assertTrue(m.is_change())
        self.assertEqual(m.attrs, [("RDMA_NLDEV_ATTR_DEV_NAME", '"rxe0"'),
                                   ("RDMA_NLDEV_ATTR_LINK_TYPE", '"rxe"'),
                                   ("RDMA_NLDEV_ATTR_NDEV_NAME", '"eth0"')])

    def test_rdma_set_renames_a_device_by_index(self):
        # `rdma dev set rxe_t name rxe_r` (iproute2 rdma/dev.c dev_set_name): the device by
        # RDMA_NLDEV_ATTR_DEV_INDEX, the new name in RDMA_NLDEV_ATTR_DEV_NAME; a change.
        body = attr(1, struct.pack("<I", 2)) + string(2, "rxe_r")
        m = compare.split_messages(20, msg(5 << 10 | 2, NLM_F_REQUEST | NLM_F_ACK, body))[0]
        self.assertEqual(m.name, "RDMA_NLDEV_CMD_SET")
        self.assertTrue(m.is_change())
        self.assertFalse(m.is_probe())
        self.assertEqual(m.attrs, [("RDMA_NLDEV_ATTR_DEV_INDEX", "2"),
                                   ("RDMA_NLDEV_ATTR_DEV_NAME", '"rxe_r"')])

    def test_truncated_attribute_is_shown_not_dropped(self):
        body = ifinfo() + struct.pack("<HH", 40, 3) + b"ib0\0"
        m = compare.split_messages(0, msg(RTM_NEWLINK, NLM_F_REQUEST, body))[0]
        self.assertEqual(m.attrs[0][0], "(truncated)")


class CompareTest(unittest.TestCase):
    def verdict(self, lines):
        ops = compare.parse_log(lines)
        return {op: compare.compare_op(op, sides) for op, sides in ops.items()}

    def test_same_request_same_answer_same_state(self):
        a, b = pkey_child(True, seq=7), pkey_child(True, seq=9)
        ok, out = self.verdict([nlcap("p.ours", a), nlcap("p.ours", ack(a, 19)),
                                nlcap("p.ip", b), nlcap("p.ip", ack(b, 19))])["p"]
        self.assertTrue(ok, out)
        self.assertIn("same request, same answer, same state", out[-1])

    def test_nested_flag_and_attribute_order_are_equivalent_only_where_listed(self):
        ours, ip = pkey_child(True), pkey_child(False, order_link_first=True)
        lines = [nlcap("pkey-child.ours", ours), nlcap("pkey-child.ip", ip)]
        ok, out = self.verdict(lines)["pkey-child"]
        self.assertTrue(ok, out)
        self.assertTrue(any(x.startswith("   equivalent: IFLA_LINKINFO:") for x in out))
        # The same difference on an operation without that entry is a failure.
        ok, out = self.verdict([x.replace("pkey-child.", "other.") for x in lines])["other"]
        self.assertFalse(ok)

    def test_a_different_value_fails(self):
        m1 = msg(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, ifinfo(3) + attr(4, struct.pack("<I", 1400)))
        m2 = msg(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, ifinfo(3) + attr(4, struct.pack("<I", 1500)))
        ok, out = self.verdict([nlcap("mtu.ours", m1), nlcap("mtu.ip", m2)])["mtu"]
        self.assertFalse(ok)
        self.assertIn("   differs: rdma-provision IFLA_MTU=1400", out)

    def test_answers_are_matched_by_type_seq_and_port(self):
        # libnl numbers each socket's requests from the same clock: a lookup on one socket
        # and the change on another may share a sequence number (seen in the guest).
        get = msg(18, NLM_F_REQUEST | NLM_F_ACK, ifinfo() + string(3, "ib0"), seq=5, pid=111)
        new = pkey_child(True, seq=5, pid=222)
        ip = pkey_child(True, seq=8)
        ok, out = self.verdict([
            nlcap("p.ours", get), nlcap("p.ours", ack(get, 0)),
            nlcap("p.ours", new), nlcap("p.ours", ack(new, 95)),
            nlcap("p.ip", ip), nlcap("p.ip", ack(ip, 95))])["p"]
        self.assertTrue(ok, out)
        self.assertTrue(out[1].endswith("-> errno 95"), out[1])

    def test_different_answers_fail(self):
        a, b = pkey_child(True, seq=1), pkey_child(True, seq=2)
        ok, out = self.verdict([nlcap("p.ours", a), nlcap("p.ours", ack(a, 0)),
                                nlcap("p.ip", b), nlcap("p.ip", ack(b, 19))])["p"]
        self.assertFalse(ok)
        self.assertTrue(any("answered request 1 with 0 and 19" in x for x in out))

    def test_state_after_must_match(self):
        a = pkey_child(True)
        ok, out = self.verdict([nlcap("p.ours", a), "STATE p.ours ib0.8001 mtu 2044",
                                nlcap("p.ip", a), "STATE p.ip ib0.8001 mtu 4092"])["p"]
        self.assertFalse(ok)
        self.assertIn("   FAIL: the kernel's state after them differs:", out)

    def test_one_side_missing_fails(self):
        ok, out = self.verdict([nlcap("p.ours", pkey_child(True))])["p"]
        self.assertFalse(ok)
        ok, out = self.verdict([nlcap("p.ours", pkey_child(True)), "NLCAP p.ip exit=0"])["p"]
        self.assertFalse(ok)
        self.assertIn("no change request captured on iproute2's side", out[-1])

    def test_strace_dumps_of_rdma_netlink(self):
        body = string(2, "rxe0") + string(65, "rxe") + string(51, "eth0")
        req = msg(5 << 10 | 3, NLM_F_REQUEST | NLM_F_ACK, body, seq=3)
        answer = ack(req, 17)
        lines = []
        for side in ("ours", "ip"):
            label = "rxe-again." + side
            lines.append("STRACE %s 42  sendto(3, [{nlmsg_len=..., ...}], 52, 0, NULL, 0) = 52" % label)
            lines += ["STRACE %s %s" % (label, x) for x in strace_dump(req)]
            lines.append("STRACE %s 42  recvmsg(3, {msg_name=...}, 0) = 36" % label)
            lines.append("STRACE %s  * 36 bytes in buffer 0" % label)
            lines += ["STRACE %s %s" % (label, x) for x in strace_dump(answer)]
            lines.append("STRACE %s exit=1" % label)
        ok, out = self.verdict(lines)["rxe-again"]
        self.assertTrue(ok, out)
        self.assertIn("RDMA_NLDEV_ATTR_NDEV_NAME=\"eth0\" -> errno 17", out[1])

    def test_dcb_requests_decode_and_gets_count(self):
        # RTM_SETDCB IEEE_SET with one APP entry, as `dcb app add dev eth0 dscp-prio 26:3`
        # sends it (linux/dcbnl.h: dcbmsg, DCB_ATTR_IFNAME, DCB_ATTR_IEEE nest), stale
        # padding after the name (Debian's libmnl 1.0.4 leaves it): not compared.
        def dcb(cmd, pad, seq):
            name = struct.pack("<HH", 9, 1) + b"eth0\0" + pad
            table = attr(3, attr(1, bytes([5, 3, 26, 0])), True)
            return msg(79, NLM_F_REQUEST | NLM_F_ACK,
                       struct.pack("<BBH", 0, cmd, 0) + name + attr(13, table, True), seq)
        a, b = dcb(20, b"\0\0\0", 3), dcb(20, b"\x00\x0d\x00", 4)
        m = compare.split_messages(0, a)[0]
        self.assertTrue(m.is_change())
        self.assertIn(("cmd", "IEEE_SET"), m.fields())
        self.assertIn(("DCB_ATTR_IEEE/DCB_ATTR_IEEE_APP_TABLE/DCB_ATTR_IEEE_APP", "05031a00"),
                      m.fields())
        ok, out = self.verdict([nlcap("d.ours", a), nlcap("d.ours", ack(a, 95)),
                                nlcap("d.ip", b), nlcap("d.ip", ack(b, 95))])["d"]
        self.assertTrue(ok, out)
        # A get is compared too: it is how `dcb pfc set` starts.
        get = msg(78, NLM_F_REQUEST | NLM_F_ACK, struct.pack("<BBH", 0, 21, 0) +
                  struct.pack("<HH", 9, 1) + b"eth0\0\0\0\0")
        self.assertTrue(compare.split_messages(0, get)[0].is_change())
        # IEEE_DEL against IEEE_SET is a difference.
        ok, out = self.verdict([nlcap("e.ours", dcb(27, b"\0\0\0", 5)),
                                nlcap("e.ip", dcb(20, b"\0\0\0", 6))])["e"]
        self.assertFalse(ok, out)

    def test_serial_console_prefixes_are_ignored(self):
        a = pkey_child(True)
        ops = compare.parse_log(["[   12.3] " + nlcap("p.ours", a), "\r" + nlcap("p.ip", a) + "\r\n"])
        self.assertEqual(len(ops["p"]["ours"].changes()), 1)
        self.assertEqual(len(ops["p"]["ip"].changes()), 1)


if __name__ == "__main__":
    unittest.main(verbosity=1)
