"""Run sightline over video archives on a Ray cluster: plan, one Ray task per shard, merge."""

from .driver import RunResult, ShardFailed, run

__all__ = ["run", "RunResult", "ShardFailed"]
