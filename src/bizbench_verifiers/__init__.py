"""bizbench's verifiers plug-in id (docs/interfaces.md): verifiers finds a taskset, env and
harness by the name of a top-level module, so ``vf-eval bizbench_verifiers --env.taskset.env cfo``
and prime-rl load them from here. Everything lives in :mod:`bizbench.interfaces.verifiers`."""

from bizbench.interfaces.verifiers import BizbenchEnv, BizbenchTaskset, ToolLoopHarness, load_environment

__all__ = ["BizbenchEnv", "BizbenchTaskset", "ToolLoopHarness", "load_environment"]
