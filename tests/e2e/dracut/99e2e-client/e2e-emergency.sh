#!/bin/sh
# emergency / shutdown-emergency hook of the e2e client: report and power off (sysrq).
# An rd.break= shell sources the emergency hooks too (dracut-lib.sh _emergency_shell, with
# _name the break point; "dracut" for a real emergency): that shell is left to the harness.
case ${_name:-dracut} in
    dracut) ;;
    *) return 0 ;;
esac
if [ ! -e /run/e2e-emergency-reported ]; then
    : > /run/e2e-emergency-reported
    {
        read -r _e2e_up _ < /proc/uptime
        echo "E2E-RESULT: EMERGENCY uptime $_e2e_up"
        [ -s /run/rdma-provision/failed ] && echo "E2E-EMERGENCY: rdma-provision failure: $(cat /run/rdma-provision/failed)"
        [ -e /lib/dracut/hooks/emergency/01-die.sh ] && sed 's/^/E2E-EMERGENCY: die: /' /lib/dracut/hooks/emergency/01-die.sh
        for _e2e_f in /lib/dracut/hooks/initqueue/finished/*.sh; do
            [ -e "$_e2e_f" ] || continue
            ( . "$_e2e_f" ) > /dev/null 2>&1 && continue
            echo "E2E-EMERGENCY: unfinished ${_e2e_f##*/}: $(grep -v '^#' "$_e2e_f")"
        done
        [ -e /run/rdma-provision/state.json ] &&
            grep -E '"(enabled|exit_code|summary|error)": ' /run/rdma-provision/state.json |
            grep -v '"error": null' | sed 's/^/E2E-EMERGENCY: state.json | /'
        echo "E2E-EMERGENCY: powering off"
    } > /dev/console 2>&1
fi
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 60
