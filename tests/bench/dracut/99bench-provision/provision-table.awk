# Input: lines "BENCH: <A|B> round <i> wall <s> cpu <s>" (anything else is ignored).
# Output: per method n, median, min and max of wall and CPU time; the ratios B/A of the
# medians against the goals (wall >= 3x, CPU >= 20x), and B_loaded/A_loaded.
function median(arr, n,    i, j, t, a) {
    for (i = 1; i <= n; i++) a[i] = arr[i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ sub(/\r$/, "") }
$1 == "BENCH:" && $3 == "round" && $5 == "wall" && $7 == "cpu" && NF == 8 {
    m = $2
    if (!(m in cnt)) order[++nm] = m
    cnt[m]++
    wall[m, cnt[m]] = $6 + 0
    cpu[m, cnt[m]] = $8 + 0
}
function stats(src, m, what,    i, tmp, lo, hi) {
    lo = src[m, 1]
    hi = lo
    for (i = 1; i <= cnt[m]; i++) {
        tmp[i] = src[m, i]
        if (tmp[i] < lo) lo = tmp[i]
        if (tmp[i] > hi) hi = tmp[i]
    }
    med[m, what] = median(tmp, cnt[m])
    return sprintf("%9.3f %9.3f %9.3f", med[m, what], lo, hi)
}
function ratio(a, b, what,    r) {
    if (!(a in cnt) || !(b in cnt)) return
    if (med[a, "wall"] > 0) {
        r = med[b, "wall"] / med[a, "wall"]
        printf "BENCH-TABLE: wall %s/%s = %.2fx (%s; goal >= 3x: %s)\n", b, a, r, what, (r >= 3 ? "met" : "NOT met")
    }
    if (med[a, "cpu"] > 0) {
        r = med[b, "cpu"] / med[a, "cpu"]
        printf "BENCH-TABLE: cpu  %s/%s = %.2fx (%s; goal >= 20x: %s)\n", b, a, r, what, (r >= 20 ? "met" : "NOT met")
    } else {
        printf "BENCH-TABLE: cpu  %s/%s = n/a (the CPU time of %s rounds to 0)\n", b, a, a
    }
}
END {
    if (nm == 0) { print "BENCH-TABLE: no BENCH lines"; exit 1 }
    printf "BENCH-TABLE: %-9s %3s %9s %9s %9s %9s %9s %9s\n", "method", "n", "wall_med", "wall_min", "wall_max", "cpu_med", "cpu_min", "cpu_max"
    for (k = 1; k <= nm; k++) {
        m = order[k]
        printf "BENCH-TABLE: %-9s %3d %s %s\n", m, cnt[m], stats(wall, m, "wall"), stats(cpu, m, "cpu")
    }
    ratio("A", "B", "the whole step")
    ratio("A_loaded", "B_loaded", "modules loaded beforehand")
}
