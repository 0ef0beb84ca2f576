#!/bin/sh
# Test-only stand-in for /usr/sbin/rdma-provision (images built with e2e_fault_wrapper=yes;
# never in a user's image): "apply" aborts (e2e.fault=abort) or hangs (e2e.fault=hang) as a
# crashed or stuck binary would; every other command, and apply without e2e.fault, runs
# the real binary, kept as /usr/sbin/rdma-provision.real.
if [ "$1" = apply ]; then
    case " $(cat /proc/cmdline) " in
        *" e2e.fault=abort "*) kill -ABRT $$ ;;
        *" e2e.fault=hang "*) exec sleep 100000 ;;
    esac
fi
exec /usr/sbin/rdma-provision.real "$@"
