"""Agents (docs/AGENTS.md): a fixed action space with masks (actions), observation tensors (observation), and a
PettingZoo AEC environment (aec) for every format: `khasino_sim.agents.env(format="khasino")`, and the batched
environment in the compiled core (batch): `khasino_sim.agents.batch_env(format="khasino", n=64)`."""


def env(**kwargs):
    """khasino_sim.agents.aec.env: the PettingZoo AEC environment (needs the `agents` extra: pettingzoo)."""
    from .aec import env as make
    return make(**kwargs)


def batch_env(**kwargs):
    """khasino_sim.agents.batch.BatchEnv: N games of any format stepped together in
    the compiled core (numpy only, no extra needed)."""
    from .batch import BatchEnv
    return BatchEnv(**kwargs)
