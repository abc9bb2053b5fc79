"""`python -m khasino_sim.cli`, as `python -m khasino_sim` and the `khasino` script."""
from . import main

main()
