#!/bin/sh
# Test-only stand-in for /usr/sbin/rdma-provision (images built with e2e_fault_wrapper=yes;
# never in a user's image): "apply" aborts (e2e.fault=abort) or hangs (e2e.fault=hang) as a
# crashed or stuck binary would; every other command, and apply without e2e.fault, runs
# the real binary, kept as /usr/sbin/rdma-provision.real.
# e2e.hca=NETDEV (scenario 20): before apply, a stand-in for an HCA driver's probe. A
# hardware RDMA device registers at probe on a link nothing has set up, its RoCE port
# DOWN until the netdev runs with carrier (mlx5_query_port_roce). Here a Soft-RoCE device
# made on NETDEV (by the real binary, with no other setting) before the link is set down
# again: rxe_notify's NETDEV_DOWN makes its port DOWN, and apply then finds a registered
# device on a down link, as on a ConnectX node, with no soft-link setting of its own.
if [ "$1" = apply ]; then
    case " $(cat /proc/cmdline) " in
        *" e2e.fault=abort "*) kill -ABRT $$ ;;
        *" e2e.fault=hang "*) exec sleep 100000 ;;
        *" e2e.hca="*)
            hca=$(sed -n 's/.* e2e\.hca=\([^ ]*\).*/\1/p' /proc/cmdline)
            /usr/sbin/rdma-provision.real apply --log stderr \
                --cmdline-string "rd.rdma.rxe=$hca rd.rdma.wait=none" > /dev/null 2>&1
            ip link set "$hca" down
            echo "E2E-HCA: rxe0 on $hca, link down: $(cat /sys/class/infiniband/rxe0/ports/1/state)" > /dev/kmsg
            ;;
    esac
fi
exec /usr/sbin/rdma-provision.real "$@"
