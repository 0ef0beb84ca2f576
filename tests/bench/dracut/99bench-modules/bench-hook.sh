#!/bin/sh
# pre-trigger hook: run the benchmark (its own bash process), then power off in any case.
/bin/bash /usr/bin/bench-driver.sh > /dev/console 2>&1 ||
    echo "BENCH-ERROR: driver exited with status $?" > /dev/console
echo "BENCH-DONE" > /dev/console
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 60
