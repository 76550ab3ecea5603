# Sourced by the check scripts: the resident memory of a process over its life (Linux /proc).
#
# watch_rss PID FILE [SECONDS]  samples PID's resident set (VmRSS) every SECONDS (default 1) into
#                               FILE as "seconds,rss_kib" rows until PID ends; run it with & beside
#                               the process and wait for both.
# rss_summary FILE              one line: samples, peak, and the mean of the first and last quarter
#                               of the run in MiB (flat memory keeps the two quarters close).
watch_rss() {
    local pid="$1" file="$2" every="${3:-1}" start=$SECONDS rss
    echo "seconds,rss_kib" > "$file"
    # A process that has ended (a zombie included) has no VmRSS line: the loop ends with it.
    while rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2> /dev/null) && [ -n "$rss" ]; do
        echo "$((SECONDS - start)),$rss" >> "$file"
        sleep "$every"
    done
}

rss_summary() {
    awk -F, 'NR > 1 { rss[++n] = $2; if ($2 > peak) peak = $2 }
        END {
            if (n == 0) { print "rss: no samples"; exit }
            q = int(n / 4); if (q < 1) q = 1
            for (i = 1; i <= q; i++) first += rss[i]
            for (i = n - q + 1; i <= n; i++) last += rss[i]
            printf "rss: %d samples, peak %.1f MiB, first quarter %.1f MiB, last quarter %.1f MiB\n",
                n, peak / 1024, first / q / 1024, last / q / 1024
        }' "$1"
}
