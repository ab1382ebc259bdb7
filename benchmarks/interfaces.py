"""Speed of the standard interfaces (docs/interfaces.md): what a door costs over the env in process.

Run from the repository root::

    .venv/bin/python benchmarks/interfaces.py                          # every part
    .venv/bin/python benchmarks/interfaces.py --part steps --steps 10000
    .venv/bin/python benchmarks/interfaces.py --part vector --vector-episodes 64

(1) **Steps per second, each registered env** (``--part steps``): the same scripted episodes
(seeds 1..E, enough for ``--steps`` steps; the preset's horizon; each turn calls every read-only
tool that takes no argument, then ends the turn with an advance) played twice: **in process** through
:class:`~bizbench.interfaces.episode.ToolEpisode` (the call, its reward, the observation when a
turn ends, the result at the end: what a door hands its agent) and **through Gymnasium**
(``gymnasium.make("bizbench/<env>-v0")``, one JSON action per ``step``). Both build the same
worlds, so the difference is the door's own cost: JSON actions, the observation text, the info
dict, Gymnasium's wrappers. The two ways alternate episode by episode for ``--repeat`` rounds, so
a change in the machine's load falls on both, and each episode counts with its fastest time, in
CPU seconds of this process (other processes on a shared machine then count less). Printed:
steps per CPU second of each and the overhead = Gymnasium time / in-process time - 1 (target
<= 10 %).

(2) **Vectorised episodes per second, each env of ``--vector-envs``** (default every registered env; the
issue's figures: ``--vector-envs yc,cfo``; ``--part vector``):
``--vector-episodes`` episodes of the preset's horizon, each step an action of part 1's scripted
turn drawn at random (a read, or the advance), four ways: **one process** (one env, the episodes
one after another), **2 processes** (the episodes dealt to two processes, each with its own env),
**AsyncVectorEnv on 2 workers** (two sub-envs stepped in lock step, each reset as its episode
ends, until the episodes have ended) and **AsyncVectorEnv, all at once** (one worker process per
episode). The time runs from making the env to closing it. Printed: episodes/s, the ratio to one
process, the cores used by this process and its workers (getrusage) and by other processes
meanwhile (/proc/stat): on a shared machine the figures measure its load as much as the door.
The worlds differ between the ways (vector envs draw the later seeds from their generators), all
from the same presets.

(3) **MCP over stdio, per-call latency** (``--part mcp``, ``--mcp-calls``): a ``bizbench mcp``
subprocess per env driven by the MCP SDK's own client; the median and 95th percentile of one
read-tool call, from the client's send to its answer, beside the same call in process (target:
median <= 5 ms).

Nothing here is a test: figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import gymnasium
import numpy as np
from sweep_speed import cpu_seconds

from bizbench.core.envs import list_envs
from bizbench.interfaces.episode import ToolEpisode
from bizbench.interfaces.gym import gym_id

TARGET_OVERHEAD = 0.10
TARGET_MCP_MS = 5.0
ADVANCE = json.dumps({"advance": True})


def turn_calls(episode: ToolEpisode) -> list[tuple[str, dict[str, Any]]]:
    """One turn's calls: every read-only tool that takes no argument (from the env's registry)."""
    return [(t.name, {}) for t in episode.tools() if not t.mutates and not t.input_schema.get("required")]


def in_process(env_id: str, seed: int) -> int:
    """Play one scripted episode through ToolEpisode, reading after each step what the Gymnasium
    door reads (the reward, the end, the observation when a turn ended); returns its steps."""
    episode = ToolEpisode(env_id, seed)
    episode.observation_text()
    actions: list[tuple[str, dict[str, Any]] | None] = [*turn_calls(episode), None]  # None: the advance
    steps, ended = 0, False
    while not ended:
        for action in actions:
            turn = episode.env.turn
            if action is None:
                episode.advance()
                text = ""
            else:
                text = episode.call(*action).text
            episode.reward()
            ended = episode.terminated or episode.truncated
            if ended or episode.env.turn != turn:
                text += episode.observation_text()
            steps += 1
    episode.finish()
    return steps


def through_gymnasium(env: gymnasium.Env[str, str], seed: int) -> int:
    """Play the same episode on a Gymnasium env; returns its steps."""
    env.reset(seed=seed)
    calls = [json.dumps({"tool": name, "args": args}) for name, args in turn_calls(env.unwrapped.episode)]  # type: ignore[attr-defined]
    steps, ended = 0, False
    while not ended:
        for action in [*calls, ADVANCE]:
            _, _, terminated, truncated, _ = env.step(action)
            ended = terminated or truncated
            steps += 1
    return steps


def timed(run: Callable[..., int], *args: Any, clock: Callable[[], float] = time.perf_counter) -> tuple[float, int]:
    """(seconds of ``clock``, what ``run(*args)`` counted)."""
    started = clock()
    count = run(*args)
    return clock() - started, count


def seeds_for(env_id: str, min_steps: int) -> range:
    """The seeds 1..E whose scripted episodes take at least ``min_steps`` steps (a warm-up run)."""
    steps, seed = 0, 0
    while steps < min_steps:
        seed += 1
        steps += in_process(env_id, seed)
    return range(1, seed + 1)


def steps_part(min_steps: int, repeat: int) -> None:
    print(f"(1) steps per CPU second: scripted episodes of at least {min_steps} steps, the best of {repeat} of each")
    print(f"  load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"  {'env':<10} {'episodes':>8} {'steps':>7} {'in process':>12} {'Gymnasium':>12} {'overhead':>9}")
    for spec in list_envs():
        seeds = seeds_for(spec.id, min_steps)
        env = gymnasium.make(gym_id(spec.id))
        best: dict[tuple[str, int], float] = {}  # (way, seed) -> its fastest episode
        steps = 0
        for round_ in range(repeat):
            for seed in seeds:  # episode by episode, alternating which way goes first
                ways = [("in process", in_process, spec.id), ("gymnasium", through_gymnasium, env)]
                counts = set()
                for name, run, target in ways[:: 1 if (round_ + seed) % 2 else -1]:
                    took, count = timed(run, target, seed, clock=time.process_time)
                    best[name, seed] = min(took, best.get((name, seed), took))
                    counts.add(count)
                assert len(counts) == 1, (spec.id, seed, counts)
                steps += counts.pop() if round_ == 0 else 0
        env.close()
        direct, gym = (sum(t for (name, _), t in best.items() if name == way) for way in ("in process", "gymnasium"))
        overhead = gym / direct - 1
        verdict = "PASS" if overhead <= TARGET_OVERHEAD else "MISS"
        print(
            f"  {spec.id:<10} {len(seeds):>8} {steps:>7} {steps / direct:>10,.0f}/s {steps / gym:>10,.0f}/s"
            f" {overhead:>+8.1%}  {verdict} (target <= {TARGET_OVERHEAD:.0%})"
        )


def turn_actions(env_id: str) -> list[str]:
    """The scripted turn of part 1 as Gymnasium actions: the reads, then the advance."""
    return [json.dumps({"tool": name, "args": args}) for name, args in turn_calls(ToolEpisode(env_id, 1))] + [ADVANCE]


def one_process(env_id: str, seeds: range, actions: list[str]) -> int:
    """The episodes of ``seeds`` on one env, one after another, each step an action drawn from ``actions``."""
    draw = np.random.default_rng(seeds.start)
    env = gymnasium.make(gym_id(env_id))
    for seed in seeds:
        env.reset(seed=seed)
        ended = False
        while not ended:
            _, _, terminated, truncated, _ = env.step(actions[draw.integers(len(actions))])
            ended = terminated or truncated
    env.close()
    return len(seeds)


def processes(env_id: str, episodes: int, actions: list[str], workers: int) -> int:
    """The episodes dealt to ``workers`` processes, each playing its share on its own env (no lock step)."""
    shares = [range(1 + w, episodes + 1, workers) for w in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        return sum(pool.map(one_process, [env_id] * workers, shares, [actions] * workers))


def vectorised(env_id: str, episodes: int, actions: list[str], workers: int) -> int:
    """``episodes`` episodes on an AsyncVectorEnv of ``workers`` sub-envs (each reset as its episode ends)."""
    draw = np.random.default_rng(0)
    envs = gymnasium.make_vec(
        gym_id(env_id), num_envs=workers, vectorization_mode="async", vector_kwargs={"shared_memory": False}
    )
    envs.reset(seed=1)
    ended = 0
    while ended < episodes:
        _, _, terminated, truncated, _ = envs.step([actions[i] for i in draw.integers(len(actions), size=workers)])
        ended += int(np.sum(terminated | truncated))
    envs.close()
    return ended


def vector_part(env_ids: list[str], episodes: int) -> None:
    print(f"\n(2) vectorised: {episodes} episodes of each env (each step a read or the advance, drawn at random)")
    print(f"  {'env':<4} {'way':<32} {'wall':>8} {'episodes/s':>11} {'ratio':>7} {'cores':>6} {'others':>7}")
    ways: dict[str, Callable[[str, list[str]], int]] = {
        "one process": lambda env_id, actions: one_process(env_id, range(1, episodes + 1), actions),
        "2 processes, episodes dealt": lambda env_id, actions: processes(env_id, episodes, actions, 2),
        "AsyncVectorEnv, 2 workers": lambda env_id, actions: vectorised(env_id, episodes, actions, 2),
        f"AsyncVectorEnv, {episodes} at once": lambda env_id, actions: vectorised(env_id, episodes, actions, episodes),
    }
    for env_id in env_ids:
        actions = turn_actions(env_id)
        base = None
        for label, way in ways.items():
            ours0, busy0 = cpu_seconds()
            wall, done = timed(way, env_id, actions)
            ours1, busy1 = cpu_seconds()
            rate = done / wall
            base = base or rate
            cores, others = (ours1 - ours0) / wall, (busy1 - busy0 - (ours1 - ours0)) / wall
            figures = f"{wall:>7.2f}s {rate:>11.1f} {rate / base:>6.2f}x {cores:>6.2f} {others:>7.2f}"
            print(f"  {env_id:<4} {label:<32} {figures}")


def mcp_call_latency(calls: int) -> None:
    """(3) The latency of one tool call over MCP on stdio, each registered env: a ``bizbench mcp``
    subprocess with the SDK's own client, ``calls`` calls of the env's first read-only tool that
    takes no argument (after a warm-up call), each timed from the client's send to its answer;
    beside it the same call in process (``ToolEpisode.call``). Printed: median and p95 in ms
    (target: median <= 5 ms)."""
    import anyio

    from bizbench.interfaces.mcp import stdio_client

    print(f"\n(3) MCP over stdio: {calls} calls of a read tool per env (target: median <= {TARGET_MCP_MS:g} ms)")
    print(f"{'env':<10}{'tool':<22}{'in process':>14}{'MCP median':>13}{'MCP p95':>10}{'target':>9}")

    async def over_mcp(env_id: str, tool: str) -> list[float]:
        async with stdio_client(env_id, 1) as client:
            await client.call_tool(tool, {})
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                await client.call_tool(tool, {})
                times.append(time.perf_counter() - start)
        return times

    for spec in list_envs():
        episode = ToolEpisode(spec.id, 1)
        tool = next((t.name for t in episode.tools() if not t.mutates and not t.input_schema.get("required")), None)
        if tool is None:
            print(f"{spec.id:<10}(no read-only tool without arguments)")
            continue
        local = []
        for _ in range(calls):
            start = time.perf_counter()
            episode.call(tool, {})
            local.append(time.perf_counter() - start)
        remote = anyio.run(over_mcp, spec.id, tool)
        median, p95 = (float(np.percentile(remote, q)) * 1000 for q in (50, 95))
        verdict = "met" if median <= TARGET_MCP_MS else "MISSED"
        print(
            f"{spec.id:<10}{tool:<22}{float(np.median(local)) * 1000:>11.3f} ms{median:>10.3f} ms{p95:>7.3f} ms"
            f"{verdict:>9}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["all", "steps", "vector", "mcp"], default="all")
    parser.add_argument(
        "--steps", type=int, default=3000, help="steps of scripted episodes per env in part 1 (at least)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="rounds of part 1 (each episode's best counts)")
    parser.add_argument(
        "--vector-envs", default=None, help="the envs of part 2, separated by commas (default: every registered env)"
    )
    parser.add_argument("--vector-episodes", type=int, default=64, help="episodes of each env in part 2")
    parser.add_argument("--mcp-calls", type=int, default=200, help="timed calls per env in part 3")
    args = parser.parse_args()
    if args.part in ("all", "steps"):
        steps_part(args.steps, args.repeat)
    if args.part in ("all", "vector"):
        envs = args.vector_envs.split(",") if args.vector_envs else [spec.id for spec in list_envs()]
        vector_part(envs, args.vector_episodes)
    if args.part in ("all", "mcp"):
        mcp_call_latency(args.mcp_calls)


if __name__ == "__main__":
    main()
