# Sourced by the scripts that measure on a busy machine: start_hogs KIND SCRATCH starts a CPU hog,
# stop_hogs ends it (each hog runs in its own process group, so its children end with it; every hog
# also ends by itself after 30 minutes).
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
                setsid timeout 1800 bash -c 'while :; do :; done' &
                hog_groups+=($!)
            done
            ;;
        build)
            setsid timeout 1800 bash -c "while :; do rm -rf '$scratch/hog-build'; swift build -c release --scratch-path '$scratch/hog-build' >/dev/null 2>&1 || true; done" &
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
