#!/bin/bash
# Kills `sightline analyze --render` with SIGKILL at random moments and checks what it leaves:
# the JSON Lines must be valid up to the last complete line (Scripts/validate_records.py
# --partial) and the fragmented MP4 must decode (ffmpeg, no error), with no more frames than the
# frame records written and the same frame count as ffprobe reports. A run killed before the
# video's first fragment (about one second of frames) leaves its header only: that must be
# readable, and holds no frame.
#
#   Scripts/kill_test.sh [--kills 20] [--seed N] [--binary PATH] [--input VIDEO]
#
# The default input is the sample scaled to 320x180 (all 300 frames, with its faces and codes),
# made once in .build-kill/, so that 20 runs stay cheap.
# First times one whole run, then kills run i after a random moment within that time (from the
# seed, so a failing moment can be replayed). Failing outputs are kept in .build-kill/.
# Exit 1 when any kill point left invalid records or an undecodable video.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=20 seed=1 binary=.build/debug/sightline input=
while [ $# -gt 0 ]; do
    case "$1" in
        --kills) kills=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        --input) input=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "kill_test.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "kill_test.sh: $binary: not built (swift build)" >&2; exit 66; }
work=.build-kill
mkdir -p "$work"
rm -f "$work"/run* "$work"/whole.*
if [ -z "$input" ]; then
    input=$work/sample-320x180.mp4
    [ -s "$input" ] || ffmpeg -v error -y -i Samples/faces-and-codes-720p.mp4 -vf scale=320:180 -c:v libx264 -preset veryfast "$input"
fi
start=$(date +%s.%N)
nice -n 10 "$binary" analyze "$input" -q -o "$work/whole.jsonl" --render "$work/whole.mp4"
whole=$(awk "BEGIN {print $(date +%s.%N) - $start}")
echo "a whole run takes ${whole} s; killing $kills runs at random moments within it"
RANDOM=$seed
valid=0
for ((i = 1; i <= kills; i++)); do
    # A moment between 2 % and 98 % of a whole run, in milliseconds.
    moment=$(awk -v r=$RANDOM -v w="$whole" 'BEGIN {printf "%.3f", w * (0.02 + 0.96 * r / 32767)}')
    records=$work/run$i.jsonl video=$work/run$i.mp4
    nice -n 10 "$binary" analyze "$input" -q -o "$records" --render "$video" &
    pid=$!
    sleep "$moment"
    kill -KILL $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    problems=""
    [ -e "$records" ] || : > "$records"     # killed before the output was created
    complete=$(tr -cd '\n' < "$records" | wc -c)
    if [ "$complete" -gt 0 ]; then
        python3 -W ignore Scripts/validate_records.py --partial "$records" > "$work/run$i.validation" || problems+="records invalid ($(head -n 1 "$work/run$i.validation")); "
    fi
    frames=$(grep -c '"type":"frame"' "$records" 2>/dev/null || true)
    decoded=0
    if [ -e "$video" ] && ! grep -q moof "$video"; then
        # Killed before the first fragment: the file holds the header only, no frame yet.
        ffprobe -v error -show_streams "$video" > "$work/run$i.decode" 2>&1 || problems+="video header unreadable: $(head -c 200 "$work/run$i.decode"); "
    elif [ -e "$video" ]; then
        if ffmpeg -v error -xerror -i "$video" -f null - > "$work/run$i.decode" 2>&1; then
            decoded=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$video")
            decoded=${decoded:-0}
            [ "$decoded" = "N/A" ] && decoded=0
            [ "$decoded" -le "${frames:-0}" ] || problems+="video has $decoded frames but only ${frames} frame records; "
        else
            problems+="video does not decode: $(head -c 200 "$work/run$i.decode"); "
        fi
    fi
    if [ -z "$problems" ]; then
        valid=$((valid + 1))
        printf 'kill %2d at %7.3f s: valid   (%d complete lines, %d frame records, %d frames in the video)\n' $i "$moment" "$complete" "${frames:-0}" "$decoded"
        rm -f "$records" "$video" "$work/run$i".*
    else
        printf 'kill %2d at %7.3f s: INVALID %s (kept in %s)\n' $i "$moment" "$problems" "$work"
    fi
done
echo "$valid/$kills kill points valid"
[ "$valid" = "$kills" ]
