"""The JSON state codec of docs/ENGINE.md, one module per family: ``common`` (reading bounded text, cards,
seats, the shared checks and the `options` object), ``single_deck`` (the one-deck states Khasino and Cassino
share), ``khasino``, ``cassino`` and ``kasino`` (each family's fields and rules), and ``dispatch`` (`parse` and
`to_json` by the state's format and its family).

This package imports nothing of ``khasino_sim.formats`` or ``khasino_sim.families`` except in ``dispatch``, so
that a family record (khasino_sim/families/) can hold its codec module.
"""
