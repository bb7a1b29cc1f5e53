#!/usr/bin/env bash
# Writes the option reference (docs/options.md) from the commands' own --help, to standard output.
#
#   Scripts/gen_options_doc.sh > docs/options.md     # regenerate
#   Scripts/gen_options_doc.sh --check               # exit 1 when docs/options.md is out of date
#
# BIN is the sightline binary (default .build/debug/sightline). Every subcommand that
# `sightline --help` lists gets a heading and its `sightline SUB --help` in a text block; a
# subcommand with subcommands of its own (models) gets one for each of those too. The help is
# produced at a fixed width (COLUMNS=100) and without $SIGHTLINE_DNN_RUNTIME, so the output does
# not depend on the terminal or the environment.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

BIN=${BIN:-$root/.build/debug/sightline}   # a BIN given relative is taken from the current folder
DOC=$root/docs/options.md
check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--check]" >&2; exit 64 ;;
esac

[ -x "$BIN" ] || { echo "gen_options_doc.sh: $BIN not found or not executable (build first, or set BIN)" >&2; exit 66; }

# The help of one command, at a fixed width and independent of the environment's runtime choice.
help_of() {
    env -u SIGHTLINE_DNN_RUNTIME COLUMNS=100 LINES=50 "$BIN" "$@" --help
}

# The subcommand names in the SUBCOMMANDS sections of a help text ("SUBCOMMANDS:", or one per
# group, "ANALYZE SUBCOMMANDS:"; two-space indent; "(default)" dropped).
subcommands_of() {
    awk '/^([A-Z][A-Z ]* )?SUBCOMMANDS:$/ { on = 1; next }
         on && /^[^ ]/ { on = 0 }
         on && /^  [a-z]/ { print $1 }'
}

section() {  # heading level, command words...
    local level=$1; shift
    local title="sightline${*:+ $*}"
    printf '\n%s `%s`\n\n```text\n' "$level" "$title"
    help_of "$@"
    printf '```\n'
}

generate() {
    local top sub subsub
    top=$(help_of)
    printf 'Generated from the `--help` of %s by `Scripts/gen_options_doc.sh`; do not edit by hand.\n\n' \
        "$("$BIN" --version | sed 's/^/sightline /; s/^sightline sightline/sightline/')"
    printf '# Options\n\n'
    printf 'Regenerate with `Scripts/gen_options_doc.sh > docs/options.md` after changing an option\n'
    printf '(`--check` tells whether this file matches the binary).\n'
    section '##'
    for sub in $(printf '%s\n' "$top" | subcommands_of); do
        section '##' "$sub"
        for subsub in $(help_of "$sub" | subcommands_of); do
            section '###' "$sub" "$subsub"
        done
    done
}

if [ "$check" = 1 ]; then
    [ -f "$DOC" ] || { echo "docs/options.md is missing: run Scripts/gen_options_doc.sh > docs/options.md" >&2; exit 1; }
    if ! generate | cmp -s - "$DOC"; then
        echo "docs/options.md differs from the commands' --help: run Scripts/gen_options_doc.sh > docs/options.md" >&2
        exit 1
    fi
    exit 0
fi
generate
