"""Train a model on a bizbench env served over OpenEnv, with TRL's GRPOTrainer ``rollout_func``.

Serve an env (docs/interfaces.md, OpenEnv), then train on it, or play it without TRL::

    bizbench openenv lemonade --horizon 5 --max-sessions 16 --out runs/openenv &
    python examples/openenv_trl.py --url http://127.0.0.1:8000 --dry-run --episodes 3
    python examples/openenv_trl.py --url http://127.0.0.1:8000 --model Qwen/Qwen3-0.6B   # trl, vllm, a GPU

Each dataset row names a world (``Play world 7.``). A rollout resets an OpenEnv session on that
world, shows the model the env's system prompt, its tools and the turn's observation, and plays
one action per model reply (a tool call, or the end of the turn) until the episode is done or
``--max-actions`` replies were made. The rollout's reward is the sum of the env's rewards, which
is the episode score. ``--dry-run`` plays the same loop with a scripted policy, so the env side
runs without TRL or torch.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openenv.core.generic_client import GenericEnvClient

ACTION_FORMAT = (
    "\n\nAnswer every message with one JSON object: "
    '{"tool": "<tool name>", "arguments": {...}} calls a tool; {"end_turn": true} ends the turn.'
)
FORMAT_ERROR = 'Error: the reply holds no JSON action; send {"tool": ..., "arguments": {...}} or {"end_turn": true}.'
WORLD_PROMPT = "Play world {seed}."

#: a policy turns the conversation so far into a reply: ``{"text": ...}`` and, from TRL, the
#: reply's ``prompt_ids``, ``completion_ids`` and ``logprobs``
Policy = Callable[[list[dict[str, str]]], dict[str, Any]]


@dataclass
class Episode:
    """One played episode: the conversation, each reply with the env's answer, the summed reward."""

    messages: list[dict[str, str]]
    turns: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    reward: float = 0.0
    done: bool = False


def seed_of(prompt: str) -> int:
    """The world a dataset prompt names (``WORLD_PROMPT``)."""
    match = re.search(r"world (\d+)", prompt)
    if match is None:
        raise ValueError(f"the prompt names no world: {prompt!r} (expected {WORLD_PROMPT!r})")
    return int(match.group(1))


def parse_action(text: str) -> dict[str, Any] | None:
    """The OpenEnv step a reply asks for, or None when it holds no JSON action."""
    start, end = text.find("{"), text.rfind("}")
    try:
        reply = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        return None
    if not isinstance(reply, dict):
        return None
    if reply.get("end_turn"):
        return {"type": "advance"}
    if isinstance(reply.get("tool"), str):
        arguments = reply.get("arguments")
        return {"type": "call_tool", "tool_name": reply["tool"], "arguments": arguments or {}}
    return None


def answer_text(observation: dict[str, Any]) -> str:
    """What the model reads after a step: a tool's text, the env's error, or the next turn's observation."""
    if observation.get("error"):
        return f"Error: {observation['error']['message']}"
    result = observation.get("result")
    if isinstance(result, dict):
        return "\n".join(block.get("text", "") for block in result.get("content", []))
    return str(observation.get("text", ""))


def play(client: Any, policy: Policy, seed: int, max_actions: int) -> Episode:
    """Play world ``seed`` on an OpenEnv session (a sync ``GenericEnvClient``) with ``policy``."""
    step = client.reset(seed=seed)
    tools = client.step({"type": "list_tools"}).observation["tools"]
    listing = "\n".join(f"- {t['name']}: {t['description']} {json.dumps(t['input_schema'])}" for t in tools)
    system = f"{step.observation['system_prompt']}\n\n## Tools\n{listing}{ACTION_FORMAT}"
    episode = Episode([{"role": "system", "content": system}, {"role": "user", "content": step.observation["text"]}])
    episode.reward, episode.done = step.reward or 0.0, step.done
    while not episode.done and len(episode.turns) < max_actions:
        reply = policy(episode.messages)
        action = parse_action(reply["text"])
        if action is None:
            feedback = FORMAT_ERROR
        else:
            step = client.step(action)
            episode.reward += step.reward or 0.0
            episode.done = step.done
            feedback = answer_text(step.observation)
        episode.turns.append((reply, feedback))
        episode.messages += [{"role": "assistant", "content": reply["text"]}, {"role": "user", "content": feedback}]
    return episode


def scripted_policy(tools: list[dict[str, Any]]) -> Policy:
    """A policy for ``--dry-run``: each turn, call the first tool that needs no arguments, then end the turn."""
    tool = next(t["name"] for t in tools if not t["input_schema"].get("required"))

    def policy(messages: list[dict[str, str]]) -> dict[str, Any]:
        last = messages[-2]["content"] if messages[-2]["role"] == "assistant" else ""
        reply = {"end_turn": True} if '"tool"' in last else {"tool": tool, "arguments": {}}
        return {"text": json.dumps(reply)}

    return policy


def make_rollout_func(url: str, max_actions: int) -> Callable[[list[str], Any], dict[str, list[Any]]]:
    """TRL's ``rollout_func(prompts, trainer)``: one episode per prompt; the env's answers are in
    the completion with ``env_mask`` 0, and ``env_reward`` is each episode's summed reward."""
    from trl.experimental.openenv import generate_rollout_completions

    def rollout_func(prompts: list[str], trainer: Any) -> dict[str, list[Any]]:
        tokenizer = trainer.processing_class

        def policy(messages: list[dict[str, str]]) -> dict[str, Any]:
            prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            return dict(generate_rollout_completions(trainer, [prompt])[0])

        batch: dict[str, list[Any]] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask")}
        batch["env_reward"] = []
        for prompt in prompts:
            with GenericEnvClient(base_url=url).sync() as client:
                episode = play(client, policy, seed_of(prompt), max_actions)
            ids: list[int] = []
            logprobs: list[float] = []
            mask: list[int] = []
            for reply, feedback in episode.turns:
                answer = tokenizer.encode(feedback, add_special_tokens=False)
                ids += list(reply["completion_ids"]) + answer
                logprobs += list(reply["logprobs"]) + [0.0] * len(answer)
                mask += [1] * len(reply["completion_ids"]) + [0] * len(answer)
            batch["prompt_ids"].append(episode.turns[0][0]["prompt_ids"] if episode.turns else [])
            batch["completion_ids"].append(ids)
            batch["logprobs"].append(logprobs)
            batch["env_mask"].append(mask)
            batch["env_reward"].append(episode.reward)
        return batch

    return rollout_func


def reward_from_env(completions: list[Any], env_reward: list[float], **kwargs: Any) -> list[float]:
    """GRPO's reward: the episode's summed env reward, passed on from the rollout."""
    return [float(r) for r in env_reward]


def train(args: argparse.Namespace) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    dataset = Dataset.from_dict({"prompt": [WORLD_PROMPT.format(seed=s) for s in range(args.episodes)]})
    trainer = GRPOTrainer(
        model=args.model,
        reward_funcs=reward_from_env,
        train_dataset=dataset,
        rollout_func=make_rollout_func(args.url, args.max_actions),
        args=GRPOConfig(use_vllm=True, vllm_mode="colocate", num_generations=4, max_completion_length=4096),
    )
    trainer.train()


def dry_run(args: argparse.Namespace) -> list[Episode]:
    """Play ``--episodes`` worlds with the scripted policy, printing each episode's reward."""
    episodes = []
    for seed in range(args.episodes):
        with GenericEnvClient(base_url=args.url).sync() as client:
            tools = client.step({"type": "list_tools"}).observation["tools"]
            episode = play(client, scripted_policy(tools), seed, args.max_actions)
        print(f"world {seed}: {len(episode.turns)} actions, reward {episode.reward:,.2f}, done {episode.done}")
        episodes.append(episode)
    return episodes


def main(argv: list[str] | None = None) -> list[Episode] | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the OpenEnv server")
    parser.add_argument("--dry-run", action="store_true", help="play with a scripted policy, without TRL")
    parser.add_argument("--episodes", type=int, default=64, help="worlds 0..N-1 (the dataset's rows)")
    parser.add_argument("--max-actions", type=int, default=64, help="replies per episode")
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B")
    args = parser.parse_args(argv)
    if args.dry_run:
        return dry_run(args)
    train(args)
    return None


if __name__ == "__main__":
    main()
