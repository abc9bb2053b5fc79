"""Agents (docs/AGENTS.md): a fixed action space with masks (actions), observation tensors (observation), and a
PettingZoo AEC environment (aec) for every format: `khasino_sim.agents.env(format="khasino")`."""


def env(**kwargs):
    """khasino_sim.agents.aec.env: the PettingZoo AEC environment (needs the `agents` extra: pettingzoo)."""
    from .aec import env as make
    return make(**kwargs)
