# Sourced by the scripts that compare results of two runs byte for byte: canonical FROM TO copies
# every results file under FROM into TO with the run id stripped from folder names and CSV rows and
# the wall-clock rows (wall_*, *_per_wall_s) dropped; HTML, JUnit, Markdown and text are left out.
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
            cut -d, -f2- "$file" | sed -E 's/^[0-9TZ-]+,//' | grep -v -E ',wall_[a-z_]+,|,[a-z_]+_per_wall_s,' >"$to/$relative"
        else
            cp "$file" "$to/$relative"
        fi
    done < <(find "$from" -type f | sort)
}
