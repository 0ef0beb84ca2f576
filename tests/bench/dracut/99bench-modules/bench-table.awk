# Input: lines "BENCH: <method> round <i> <seconds>" (anything else is ignored).
# Output: per method n, median, min, max; then the ratios of the medians.
function median(arr, n,    i, j, t, a) {
    for (i = 1; i <= n; i++) a[i] = arr[i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ sub(/\r$/, "") }
$1 == "BENCH:" && $3 == "round" && NF == 5 {
    m = $2; v = $5 + 0
    if (!(m in cnt)) { order[++nm] = m; mn[m] = v; mx[m] = v }
    cnt[m]++; val[m, cnt[m]] = v
    if (v < mn[m]) mn[m] = v
    if (v > mx[m]) mx[m] = v
}
END {
    if (nm == 0) { print "BENCH-TABLE: no BENCH lines"; exit 1 }
    printf "BENCH-TABLE: %-12s %3s %9s %9s %9s\n", "method", "n", "median_s", "min_s", "max_s"
    for (k = 1; k <= nm; k++) {
        m = order[k]
        delete tmp
        for (i = 1; i <= cnt[m]; i++) tmp[i] = val[m, i]
        med[m] = median(tmp, cnt[m])
        printf "BENCH-TABLE: %-12s %3d %9.3f %9.3f %9.3f\n", m, cnt[m], med[m], mn[m], mx[m]
    }
    if (("parallel" in med) && med["parallel"] > 0) {
        if ("sequential" in med)
            printf "BENCH-TABLE: ratio sequential/parallel = %.2fx (goal >= 1.5x: %s)\n",
                med["sequential"] / med["parallel"], (med["sequential"] / med["parallel"] >= 1.5) ? "met" : "NOT met"
        if ("modprobe-a" in med)
            printf "BENCH-TABLE: ratio modprobe-a/parallel = %.2fx\n", med["modprobe-a"] / med["parallel"]
    }
    if (("sequential" in med) && ("modprobe-a" in med) && med["modprobe-a"] > 0)
        printf "BENCH-TABLE: ratio sequential/modprobe-a = %.2fx\n", med["sequential"] / med["modprobe-a"]
}
