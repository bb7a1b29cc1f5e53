# Shared by soak_capture.sh and soak_long_video.sh: sampling a running sightline process and the
# end-of-run growth check. Sourced, not run.

soak_header() { printf '%6s %10s %5s %8s\n' minute rss_kb fds frames; }

# soak_sample PID RECORDS MINUTE: prints the minute's line (resident memory, open files, frame
# records written so far) and sets SOAK_SAMPLE="rss fds". Fails when the process is gone.
soak_sample() {
    local rss fds frames
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null) && [ -n "$rss" ] || return 1
    fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
    frames=$(grep -c '"type":"frame"' "$2" || true)
    printf '%6d %10d %5d %8d\n' "$3" "$rss" "$fds" "$frames"
    SOAK_SAMPLE="$rss $fds"
}

# soak_growth FIRST LAST MINUTES CHECK_FDS: prints the first and last samples; fails when resident
# memory grew by more than 10 % + 20 MB, or (CHECK_FDS=1) when open files grew.
soak_growth() {
    local rss0 fds0 rss1 fds1 fail=0
    read -r rss0 fds0 <<< "$1"
    read -r rss1 fds1 <<< "$2"
    echo "start (minute 1): rss ${rss0} kB, fds ${fds0}; end (minute $3): rss ${rss1} kB, fds ${fds1}"
    [ "$rss1" -le $((rss0 + rss0 / 10 + 20480)) ] || { echo "RSS grew"; fail=1; }
    if [ "$4" = 1 ] && [ "$fds1" -gt "$fds0" ]; then echo "file descriptors grew"; fail=1; fi
    return $fail
}
