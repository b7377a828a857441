"""Run by tests/envs/test_verifiers_openenv.py in verifiers' own Python (not duel's: verifiers
0.4 pins mcp==2.0.0): verifiers' OpenEnv taskset loads tasks over a `duel openenv` server, and
each is played as verifiers' OpenEnvEnv.run plays it (its GenericEnvClient, its parse_action of
the model's reply, the per-step rewards summed), a scripted legal move standing in for the model.
Prints one JSON line per task."""

import asyncio
import json
import random
import sys

import httpx
from openenv import GenericEnvClient
from verifiers.v1.tasksets.openenv import OpenEnvConfig, OpenEnvTaskset
from verifiers.v1.tasksets.openenv.taskset import parse_action


async def play(url: str, task) -> dict:
    schema = httpx.get(url + "/schema", timeout=30).json()["action"]
    rng = random.Random(0)
    total, steps = 0.0, 0
    async with GenericEnvClient(base_url=url, message_timeout_s=300) as client:
        result = await client.reset(**task.data.reset)
        while not result.done:
            reply = json.dumps(rng.choice(result.observation["legal"]))  # the model's answer
            result = await client.step(parse_action(reply, schema))
            total += result.reward or 0.0
            steps += 1
    return {"name": task.data.name, "steps": steps, "reward": total,
            "result": result.observation["info"]["result"]}


def main() -> None:
    url = sys.argv[1]
    config = OpenEnvConfig(base_url=url, resets=[{"seed": 5}, {"seed": 6}])
    for task in OpenEnvTaskset(config).load():
        print(json.dumps(asyncio.run(play(url, task))))


if __name__ == "__main__":
    main()
