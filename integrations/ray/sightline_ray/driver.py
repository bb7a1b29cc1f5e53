"""The driver: `sightline plan`, one Ray task per shard calling the `sightline` binary, `sightline merge`.

Shards are ordinary `sightline analyze` runs. Each writes its output under a temporary name and
renames it when complete, so a task that fails or is killed part-way leaves nothing that merge
would accept, and its retry simply runs the shard again.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import time

import ray


RunResult = collections.namedtuple("RunResult", "merged shards_per_node shard_seconds")
RunResult.__doc__ = """The merged files (one per input, in input order), how many shards each Ray node ran, and
the wall time of the shard phase in seconds."""


class ShardFailed(RuntimeError):
    """A shard's `sightline analyze` exited with an error (the task is retried by Ray)."""


def _sightline(binary, args, what):
    """Runs `binary args`; the error names `what` and carries sightline's own message."""
    done = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise ShardFailed(f"{what}: sightline exited with {done.returncode}: {done.stderr.strip()}")
    return done.stdout


@ray.remote(num_cpus=1)
def _run_shard(binary, args, extra):
    """One shard on whichever node Ray picks. Returns the output path and the node's id."""
    _sightline(binary, args + extra, f"shard {args[args.index('-o') + 1]}")
    return args[args.index("-o") + 1], ray.get_runtime_context().get_node_id()


def plan(binary, inputs, shard_length, output_dir, warmup=2.0, from_scan=None):
    """The plan's shard lines as dicts (sightline plan; with from_scan, of that index's spans)."""
    args = ["plan"] + (["--from-scan", from_scan] if from_scan else list(inputs))
    if shard_length is not None:
        args += ["--shard-length", str(shard_length)]
    args += ["--warmup", str(warmup), "--output-dir", output_dir]
    return [json.loads(line) for line in _sightline(binary, args, "plan").splitlines() if line.strip()]


def run(inputs, shard_length, output_dir, address, sightline="sightline", analyze_args=(), warmup=2.0,
        retries=3, log=None, timeout=None, from_scan=None):
    """Plans, runs every shard as a Ray task and merges. Returns a RunResult.

    inputs: video files or folders, under paths every node sees. shard_length: seconds (with
    from_scan, None: one shard per span). from_scan: an index written by `sightline scan`: only
    its spans are run (inputs then empty), and the merged files hold the frames of the spans.
    output_dir: where shard outputs, the plan and the merged files go (seen by every node).
    address: the Ray cluster ("auto", "HOST:PORT"). analyze_args: options for every shard.
    timeout: seconds to wait for the shards before giving up (None: no limit).
    """
    say = log or (lambda message: None)
    binary = os.path.abspath(sightline) if os.sep in sightline else sightline
    output_dir = os.path.abspath(output_dir)
    inputs = [os.path.abspath(i) for i in inputs]
    os.makedirs(output_dir, exist_ok=True)
    shards = plan(binary, inputs, shard_length, output_dir, warmup, from_scan and os.path.abspath(from_scan))
    if not shards:
        say("nothing to run: the scan saw nothing")
        return RunResult([], {}, 0.0)
    plan_path = os.path.join(output_dir, "plan.jsonl")
    with open(plan_path + ".partial", "w") as f:
        f.writelines(json.dumps(s) + "\n" for s in shards)
    os.replace(plan_path + ".partial", plan_path)
    say(f"{len(shards)} shards of {len({s['input'] for s in shards})} inputs")

    started = time.monotonic()
    ray.init(address=address, ignore_reinit_error=True, logging_level="WARNING", log_to_driver=False)
    task = _run_shard.options(max_retries=retries, retry_exceptions=[ShardFailed])
    pending = {task.remote(binary, s["args"], list(analyze_args)): s for s in shards}
    nodes = {}
    while pending:
        left = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=left)
        if not ready:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise ShardFailed(f"{len(pending)} shards not done after {timeout} s")
        shard = pending.pop(ready[0])
        output, node = ray.get(ready[0])   # raises ShardFailed once the retries are spent
        nodes[node] = nodes.get(node, 0) + 1
        say(f"shard {shard['shard'] + 1}/{shard['shards']} of {os.path.basename(shard['input'])} done on node {node[:8]}")
    seconds = time.monotonic() - started
    say(f"all shards in {seconds:.1f} s on {len(nodes)} node(s)")

    _sightline(binary, ["merge", plan_path, "-q"], "merge")
    merged = []
    for s in shards:
        if s["merged"] not in merged:
            merged.append(s["merged"])
    return RunResult(merged, nodes, seconds)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(
        prog="sightline-ray",
        description="Analyze videos on a Ray cluster: sightline plan, one Ray task per shard, sightline merge. "
                    "Options after -- go to every shard's sightline analyze.")
    parser.add_argument("inputs", nargs="*", help="video files or folders, under paths every node sees")
    parser.add_argument("--shard-length", type=float, help="seconds of video per shard (with --from-scan: spans longer than this are cut)")
    parser.add_argument("--from-scan", metavar="INDEX", help="run only the spans of this index written by sightline scan, instead of inputs")
    parser.add_argument("--output-dir", required=True, help="folder for shard outputs, the plan and merged files (seen by every node)")
    parser.add_argument("--address", default="auto", help="Ray cluster address (default: auto)")
    parser.add_argument("--sightline", default="sightline", help="the sightline binary on every node (default: from PATH)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds analyzed before each shard (default: 2)")
    parser.add_argument("--retries", type=int, default=3, help="times a failed shard is run again (default: 3)")
    parser.add_argument("--timeout", type=float, help="give up when the shards are not done after this many seconds")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on standard error")
    args = parser.parse_args(argv)
    if bool(args.inputs) == bool(args.from_scan):
        parser.error("give the inputs, or --from-scan INDEX")
    if args.shard_length is None and not args.from_scan:
        parser.error("--shard-length is needed with inputs")
    if args.shard_length is not None and args.shard_length <= 0:
        parser.error("--shard-length must be more than 0 seconds")
    log = None if args.quiet else (lambda m: print(f"sightline-ray: {m}", file=sys.stderr, flush=True))
    try:
        for path in run(args.inputs, args.shard_length, args.output_dir, args.address, args.sightline, extra,
                        args.warmup, args.retries, log, args.timeout, args.from_scan).merged:
            print(path)
    except ShardFailed as error:
        print(f"sightline-ray: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
