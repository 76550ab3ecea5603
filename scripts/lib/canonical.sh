# Sourced by the scripts that compare results of two runs byte for byte: canonical FROM TO copies
# every results file under FROM into TO with the run id stripped from folder names and CSV rows and
# the wall-clock rows (wall_*, *_per_wall_s, and run.over_budget: wall time against the scenario's
# budget) dropped; HTML, JUnit, Markdown and text are left out.
canonical() {
    local from="$1" to="$2"
    mkdir -p "$to"
    while IFS= read -r file; do
        local relative="${file#"$from"/}"
        # <run id>-<name>/file -> <name>/file
        relative="$(printf '%s' "$relative" | sed -E 's#^([a-z]+)/[0-9TZ-]+-#\1/#')"
        case "$relative" in
            *.html | *junit.xml | *summary.md | *.txt) continue ;;
        esac
        mkdir -p "$to/$(dirname "$relative")"
        if [[ "$relative" == *summary.csv || "$relative" == */run.csv ]]; then
            cut -d, -f2- "$file" | sed -E 's/^[0-9TZ-]+,//' | grep -v -E ',wall_[a-z_]+,|,[a-z_]+_per_wall_s,|,run,over_budget,' >"$to/$relative"
        else
            cp "$file" "$to/$relative"
        fi
    done < <(find "$from" -type f | sort)
}

# same_or_report A B WHAT: 0 when the canonical folders A and B hold the same files, byte for byte;
# otherwise prints which differ, the first file's first lines of difference, "error: WHAT (first:
# FILE)", and returns 1.
same_or_report() {
    local a="$1" b="$2" what="$3" first
    diff -r -q "$a" "$b" && return 0
    first="$(diff -r -q "$a" "$b" | head -1 | awk '{print $2}')"
    echo "error: $what (first: ${first#"$a/"})" >&2
    diff "$first" "${first/"$a"/"$b"}" | head -10 >&2 || true
    return 1
}
