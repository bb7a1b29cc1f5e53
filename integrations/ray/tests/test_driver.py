"""The driver against a real Ray cluster of two nodes on this machine (loopback only).

Needs SIGHTLINE_BINARY (the built `sightline`); the repository's Swift test suite sets it and
runs this file. The cluster is started here (`ray start --head` plus a second node joining it,
memory limited, dashboard and usage stats off) and both nodes are stopped at the end, also when
the test fails.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PACKAGE))
SAMPLE = os.path.join(REPO, "Samples", "faces-and-codes-720p.mp4")
BINARY = os.environ.get("SIGHTLINE_BINARY", os.path.join(REPO, ".build", "debug", "sightline"))
# The `ray` command of the Ray this interpreter imports, whichever `ray` is first on PATH.
RAY = [sys.executable, "-c", "import sys; from ray.scripts.scripts import main; sys.argv[0] = 'ray'; main()"]

sys.path.insert(0, PACKAGE)
from sightline_ray import ShardFailed, run  # noqa: E402

# A kill switch for one shard's first attempt: the wrapper the shards run instead of the binary
# kills sightline part-way (SIGKILL, as a lost machine) the first time it is asked for that shard.
WRAPPER = """#!/bin/sh
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
case "$out" in
  *"$SIGHTLINE_TEST_KILL_ONCE"*)
    if mkdir "$SIGHTLINE_TEST_KILL_MARK" 2>/dev/null; then
      "{binary}" "$@" & pid=$!
      # Wait until it has written something, then kill it mid-run.
      n=0; while [ ! -s "$out.partial" ] && [ $n -lt 600 ] && kill -0 $pid 2>/dev/null; do sleep 0.05; n=$((n+1)); done
      kill -9 $pid 2>/dev/null; wait $pid
      [ -s "$out.partial" ] && echo killed > "$SIGHTLINE_TEST_KILL_MARK/partial-left"
      echo "first attempt killed on purpose" >&2
      exit 137
    fi;;
esac
exec "{binary}" "$@"
"""

MEMORY = str(1024 * 1024 * 1024)             # task memory per node
OBJECT_STORE = str(80 * 1024 * 1024)         # the smallest object store Ray accepts is 75 MiB


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process):
    """Ends one `ray start --block` node and everything it started (its own process group).

    SIGTERM goes to the `ray start` process alone, which stops what it started in order (about
    2 s for the head); sent to the whole group at once, it left the head's processes running
    until the 30 s timeout below, every run."""
    if process.poll() is None:
        try:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass
    # Workers that outlived their raylet would keep the group alive: end what is left of it.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two Ray nodes on 127.0.0.1 with one CPU each; yields (address, environment of the nodes)."""
    import ray

    tmp_path = tmp_path_factory.mktemp("cluster")
    # Socket paths must stay short: a temporary folder of our own under /tmp.
    temp = tempfile.mkdtemp(prefix="slray-")
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=PACKAGE,
               SIGHTLINE_TEST_KILL_ONCE="input-a.shard-0001", SIGHTLINE_TEST_KILL_MARK=str(tmp_path / "killed"))
    common = ["--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", "--num-gpus=0", "--memory", MEMORY,
              "--object-store-memory", OBJECT_STORE, "--disable-usage-stats"]
    logs = open(tmp_path / "ray-nodes.log", "w")
    nodes = []
    try:
        nodes.append(subprocess.Popen(RAY + ["start", "--head", f"--port={port}", "--include-dashboard=false",
                                       f"--temp-dir={temp}"] + common,
                                      env=env, stdout=logs, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            ok = subprocess.run(RAY + ["health-check", "--address", address], env=env, capture_output=True).returncode == 0
            if ok:
                break
            assert nodes[0].poll() is None, "the head node did not start: see " + str(tmp_path / "ray-nodes.log")
            time.sleep(1)
        nodes.append(subprocess.Popen(RAY + ["start", f"--address={address}"] + common,
                                      env=env, stdout=logs, stderr=subprocess.STDOUT, start_new_session=True))
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
        while time.monotonic() < deadline and len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert all(p.poll() is None for p in nodes), "a node stopped: see " + str(tmp_path / "ray-nodes.log")
            time.sleep(0.5)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2, "the second node did not join"
        yield address, env
    finally:
        ray.shutdown()
        for node in reversed(nodes):
            stop(node)
        logs.close()
        subprocess.run(["rm", "-rf", temp])


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + list(args), check=True)


def test_shards_on_two_nodes_merge_into_the_single_machine_runs(cluster, tmp_path):
    address, env = cluster
    assert os.access(BINARY, os.X_OK), f"no sightline binary at {BINARY} (set SIGHTLINE_BINARY)"
    # Inputs: the sample's first 6 s (three shards: a first, a middle and a last one), its first
    # 4 s, and a 4 s video that starts 0.85 s after its audio.
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    longer, first = str(inputs / "sample-6s.mp4"), str(inputs / "input-a.mp4")
    ffmpeg("-i", SAMPLE, "-t", "6", "-c", "copy", longer)
    ffmpeg("-i", SAMPLE, "-t", "4", "-c", "copy", first)
    video, audio, late = str(tmp_path / "v.mp4"), str(tmp_path / "a.m4a"), str(inputs / "input-b.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-g", "25",
           "-pix_fmt", "yuv420p", video)
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-c:a", "aac", audio)
    ffmpeg("-itsoffset", "0.85", "-i", video, "-i", audio, "-map", "0:v", "-map", "1:a", "-c", "copy", late)
    files = [longer, first, late]
    options = ["--detect-every", "5"]

    # The shards run the wrapper, which kills the first attempt of input-a's second shard.
    wrapper = tmp_path / "sightline-once-killed"
    wrapper.write_text(WRAPPER.replace("{binary}", BINARY))
    wrapper.chmod(0o755)
    # (It reads SIGHTLINE_TEST_KILL_ONCE from the nodes' environment, set when they were started.)

    out = tmp_path / "out"
    started = time.monotonic()
    # Cut every 2.45 s: at frames 74 and 147 of the sample, off the grids of the detection stride
    # (5) and of the code search (15), so the shards must count the schedule on the stream.
    result = run(files, 2.45, str(out), address, sightline=str(wrapper), analyze_args=options, warmup=1.0,
                 retries=2, log=lambda m: print("driver:", m), timeout=900)
    ray_seconds = time.monotonic() - started
    merged = result.merged
    assert len(result.shards_per_node) == 2, f"shards ran on {result.shards_per_node}, not on both nodes"

    plan = [json.loads(line) for line in open(out / "plan.jsonl")]
    assert len(plan) == 7
    assert [sum(1 for s in plan if s["input"] == f) for f in files] == [3, 2, 2]
    assert os.path.isdir(env["SIGHTLINE_TEST_KILL_MARK"]), "the first attempt was not killed"
    assert os.path.exists(os.path.join(env["SIGHTLINE_TEST_KILL_MARK"], "partial-left")), \
        "the killed attempt left no partial output (killed too late to show the retry)"
    assert len(merged) == 3

    # One run per input on this machine, with the same options: the merged files are the same bytes.
    started = time.monotonic()
    for path, file in zip(merged, files):
        whole = str(tmp_path / (os.path.basename(path) + ".whole"))
        subprocess.run([BINARY, "analyze", file, "-q", "-o", whole] + options, check=True)
        with open(whole, "rb") as a, open(path, "rb") as b:
            expected, got = a.read(), b.read()
        assert got == expected, f"{path} differs from the single-machine run of {file}"
    local_seconds = time.monotonic() - started
    print(f"wall time: Ray run (plan, 7 shards on 2 one-CPU nodes, merge) {ray_seconds:.1f} s; "
          f"single-machine runs of the 3 inputs {local_seconds:.1f} s")

    # No shard output was left half written: the killed attempt's was replaced by its retry's.
    assert not [name for name in os.listdir(out) if name.endswith(".partial")]


def test_a_shard_that_keeps_failing_is_reported(cluster, tmp_path):
    address, _ = cluster
    with pytest.raises(ShardFailed) as failure:
        run([SAMPLE], 5, str(tmp_path / "out"), address, sightline=BINARY, retries=1, timeout=600,
            analyze_args=["--faces", "off", "--codes", "off", "--max-gap", "-1"])
    assert "--max-gap" in str(failure.value)
    assert "sightline exited with 64" in str(failure.value)


def test_the_spans_of_a_scan_merge_into_the_single_machine_runs_frames(cluster, tmp_path):
    address, _ = cluster
    # 6 s of noise-only footage with the sample in it from 2 s to 4 s (a key frame every second),
    # and 3 s of the footage alone.
    mixed, blank = str(tmp_path / "mixed.mp4"), str(tmp_path / "blank.mp4")
    footage = ["-f", "lavfi", "-i", "color=c=0x6a6f72:s=640x360:r=15:d=6"]
    x264 = ["-c:v", "libx264", "-preset", "veryfast", "-g", "15", "-sc_threshold", "0", "-pix_fmt", "yuv420p"]
    ffmpeg(*footage, "-t", "2", "-i", SAMPLE, "-filter_complex",
           "[1:v]scale=640:360,fps=15,setpts=PTS-STARTPTS+2/TB[p];[0:v][p]overlay=eof_action=pass,noise=alls=6:allf=t[v]",
           "-map", "[v]", *x264, mixed)
    ffmpeg(*footage, "-t", "3", "-vf", "noise=alls=6:allf=t", *x264, blank)
    options = ["--faces", "off"]
    index = str(tmp_path / "index.jsonl")
    subprocess.run([BINARY, "scan", mixed, blank, "-q", "-o", index] + options, check=True)

    result = run([], None, str(tmp_path / "out"), address, sightline=BINARY, analyze_args=options,
                 log=lambda m: print("driver:", m), timeout=600, from_scan=index)
    assert len(result.merged) == 1, result.merged   # only mixed.mp4 showed something

    def frames(data):
        return {json.loads(line)["index"]: line for line in data.splitlines() if line.startswith('{"type":"frame"')}
    whole = frames(subprocess.run([BINARY, "analyze", mixed, "-q"] + options, check=True, capture_output=True, text=True).stdout)
    with open(result.merged[0]) as f:
        refined = frames(f.read())
    assert sorted(refined) == list(range(15, 60))   # the span: from the sample at 1 s to the one at 4 s
    assert all(line == whole[i] for i, line in refined.items())
