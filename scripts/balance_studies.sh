#!/usr/bin/env bash
# The four balance studies of docs/BALANCE.md ("Findings"), one per source rulebook (docs/rules/README.md,
# "Sources"): about 6 minutes on 2 cores.
# The study folders go to results/ (not kept in git); the reports to docs/balance/.
set -euo pipefail
cd "$(dirname "$0")/.."
khasino balance --format khasino --vary next_deal_leader=0,1,2 --vary last_capturer_takes_table=true,false \
    --bots heuristic,heuristic --games 1000000 --out results/balance-khasino --report docs/balance/khasino --quiet
khasino balance --format durban --vary max_builds_owned=1,0 --vary trail_restricted=false,true \
    --bots heuristic,heuristic --games 1000000 --out results/balance-durban --report docs/balance/durban --quiet
khasino balance --format cassino --vary sweeps=false,true --vary face_values=false,true \
    --bots heuristic,heuristic --games 200000 --out results/balance-cassino --report docs/balance/cassino --quiet
khasino balance --format kasino-2p --vary compulsory_tabbe=true,false --vary tabbe_value=5,10 \
    --bots heuristic,heuristic --games 500000 --out results/balance-kasino --report docs/balance/kasino --quiet
