# Sourced by the scripts that measure on a busy machine: start_hogs KIND SCRATCH starts a CPU hog,
# stop_hogs ends it (each hog runs in its own process group, so its children end with it). A hog lasts
# as long as the script that started it, however long its runs take, and ends by itself soon after
# that script is gone, even when it was killed with no chance to stop it (a build ends after at most
# one more build).
#
#   KIND none   nothing
#   KIND loop   one busy loop per core
#   KIND build  a release build of this package from scratch, restarted until stopped

hog_groups=()

start_hogs() {
    local kind="$1" scratch="$2"
    case "$kind" in
        none) ;;
        loop)
            for _ in $(seq "$(nproc)"); do
                # Busy, and every few milliseconds a look at whether the script is still there.
                setsid bash -c 'while kill -0 "$1" 2>/dev/null; do for ((i = 0; i < 100000; i++)); do :; done; done' \
                    hog "$$" &
                hog_groups+=($!)
            done
            ;;
        build)
            setsid bash -c 'while kill -0 "$1" 2>/dev/null; do
                    rm -rf "$2"; timeout 1800 swift build -c release --scratch-path "$2" >/dev/null 2>&1 || true
                done' hog "$$" "$scratch/hog-build" &
            hog_groups+=($!)
            ;;
        *) echo "unknown hog: $kind (none, loop or build)" >&2; return 64 ;;
    esac
}

stop_hogs() {
    local pid
    for pid in "${hog_groups[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
    for pid in "${hog_groups[@]}"; do wait "$pid" 2>/dev/null || true; done
    # The group's other members (a compiler the build started) may take a moment to go.
    for pid in "${hog_groups[@]}"; do
        for _ in $(seq 50); do
            kill -0 -- "-$pid" 2>/dev/null || break
            sleep 0.2
        done
    done
    hog_groups=()
}
