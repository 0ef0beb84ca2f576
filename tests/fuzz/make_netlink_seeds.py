#!/usr/bin/env python3
# Run from tests/fuzz/corpus (writes netlink_replies/<seed>); needs a Linux host.
# Seeds for netlink_replies: datagrams this host's kernel sent (route netlink), and RDMA
# netlink replies laid out as nldev.c fill_nldev_handle/fill_port_info makes them.
import socket, struct, os
NLMSG_ERROR, NLMSG_DONE = 2, 3
RTM_GETLINK, RTM_SETLINK = 18, 19
F_REQ, F_ACK, F_DUMP = 1, 4, 0x300
def req(type_, flags, seq, payload):
    return struct.pack('=IHHII', 16 + len(payload), type_, flags, seq, 0) + payload
def attr(t, data):
    l = 4 + len(data)
    return struct.pack('=HH', l, t) + data + b'\0' * ((4 - l % 4) % 4)
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.setsockopt(270, 11, 1)  # NETLINK_EXT_ACK
s.bind((0, 0))
ifi = struct.pack('=BxHiII', 0, 0, 1, 0, 0)  # lo
s.send(req(RTM_GETLINK, F_REQ, 7, ifi))
open('netlink_replies/rtm_newlink_lo', 'wb').write(s.recv(65536))
s.send(req(RTM_GETLINK, F_REQ | F_DUMP, 8, struct.pack('=BxHiII', 0, 0, 0, 0, 0)))
open('netlink_replies/rtm_newlink_dump', 'wb').write(s.recv(65536))
while True:  # the rest of the dump, to its NLMSG_DONE
    d = s.recv(65536)
    if struct.unpack_from('=H', d, 4)[0] == NLMSG_DONE:
        open('netlink_replies/dump_done', 'wb').write(d)
        break
# A refusal with the kernel's extended ack text: an IFLA_IFNAME too long for a rename.
s.send(req(RTM_SETLINK, F_REQ | F_ACK, 9, ifi + attr(3, b'x' * 20 + b'\0')))
open('netlink_replies/error_ext_ack', 'wb').write(s.recv(65536))
s.send(req(RTM_SETLINK, F_REQ | F_ACK, 10, struct.pack('=BxHiII', 0, 0, 999999, 0, 0)))
open('netlink_replies/error_enodev', 'wb').write(s.recv(65536))
# RDMA_NLDEV_CMD_PORT_GET reply (client 5 << 10 | cmd 5), then NLMSG_DONE.
t = (5 << 10) | 5
body = attr(1, struct.pack('=I', 0)) + attr(2, b'rxe0\0') + attr(3, struct.pack('=I', 1)) + attr(51, b'eth0\0')
done = struct.pack('=IHHII', 20, NLMSG_DONE, 2, 11, 0) + struct.pack('=i', 0)
open('netlink_replies/rdma_port_get', 'wb').write(req(t, 2, 11, body) + done)
# RDMA_NLDEV_CMD_NEWLINK refused: EEXIST with the echoed request capped (NLM_F_CAPPED 0x100).
echoed = struct.pack('=IHHII', 16, (5 << 10) | 3, 5, 12, 0)
open('netlink_replies/rdma_newlink_eexist', 'wb').write(struct.pack('=IHHII', 36, NLMSG_ERROR, 0x100, 12, 0) + struct.pack('=i', -17) + echoed)
