# Sourced by the check scripts: parse_options "$@" reads --runs N, --hog KIND and --out DIR into
# $runs, $hog and $out (set their defaults, and $hogs, the hog kinds the script accepts, first),
# refuses anything else with a usage line (exit 64) and makes the output folder.
parse_options() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --runs) runs="$2"; shift 2 ;;
            --hog) hog="$2"; shift 2 ;;
            --out) out="$2"; shift 2 ;;
            *) echo "usage: $0 [--runs N] [--hog ${hogs// /|}] [--out DIR]" >&2; exit 64 ;;
        esac
    done
    case " $hogs " in *" $hog "*) ;; *) echo "--hog is one of: $hogs" >&2; exit 64 ;; esac
    case "$runs" in '' | *[!0-9]*) echo "--runs takes a whole number" >&2; exit 64 ;; esac
    mkdir -p "$out"
}
